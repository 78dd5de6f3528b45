// SPDX-License-Identifier: Apache-2.0
#include "platform/whole_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace acp::detail {

WholeFile read_whole_file(const std::string& path, std::size_t max_bytes, std::string& contents, std::string& why) {
    contents.clear();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        why = std::strerror(error);
        return error == ENOENT ? WholeFile::missing : WholeFile::failed;
    }
    char buffer[65536];
    WholeFile result = WholeFile::ok;
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            why = std::strerror(errno);
            result = WholeFile::failed;
            break;
        }
        if (n == 0) break;
        if (contents.size() + static_cast<std::size_t>(n) > max_bytes) {
            result = WholeFile::too_large;
            break;
        }
        contents.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    if (result != WholeFile::ok) contents.clear();
    return result;
}

}  // namespace acp::detail
