// SPDX-License-Identifier: Apache-2.0
#include "platform/file_replace.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace acp::detail {

Status replace_file(const std::string& path, std::string_view contents) {
    for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        (void)::mkdir(path.substr(0, slash).c_str(), 0700);
    }
    std::string scratch = path + ".part-XXXXXX";
    int fd = ::mkstemp(scratch.data());
    if (fd < 0) return Status(Errc::io_error, "cannot write beside " + path + ": " + std::strerror(errno));
    std::size_t written = 0;
    while (written < contents.size()) {
        ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        written += static_cast<std::size_t>(n);
    }
    bool ok = written == contents.size() && ::close(fd) == 0;
    if (!ok || ::rename(scratch.c_str(), path.c_str()) != 0) {
        (void)::unlink(scratch.c_str());
        return Status(Errc::io_error, "cannot write " + path);
    }
    return {};
}

}  // namespace acp::detail
