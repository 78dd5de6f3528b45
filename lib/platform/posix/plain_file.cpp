// SPDX-License-Identifier: Apache-2.0
#include "platform/plain_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace acp::detail {
namespace {

std::string system_error(const std::string& what, int error) { return what + ": " + std::strerror(error); }

}  // namespace

PlainFile::~PlainFile() {
    if (native_ >= 0) ::close(static_cast<int>(native_));
}

PlainFile::Opened PlainFile::open(const std::string& path, Mode mode, std::string& why) {
    const int flags = mode == Mode::read ? O_RDONLY : O_WRONLY | O_CREAT;
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0666);
    if (fd < 0) {
        const int error = errno;
        why = std::strerror(error);
        return error == ENOENT ? Opened::missing : Opened::failed;
    }
    native_ = fd;
    // A regular file only: a FIFO or a device would block the loop or never end.
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        why = system_error("cannot stat the file", errno);
        return Opened::failed;
    }
    if (!S_ISREG(info.st_mode)) {
        why = "not a regular file";
        return Opened::not_regular;
    }
    // Truncated only once it is known to be a regular file.
    if (mode == Mode::write && ::ftruncate(fd, 0) != 0) {
        why = system_error("cannot truncate", errno);
        return Opened::failed;
    }
    return Opened::ok;
}

bool PlainFile::read_up_to(std::size_t limit, std::string& bytes, std::string& why) {
    char buffer[64 * 1024];
    while (bytes.size() <= limit) {
        const ssize_t n = ::read(static_cast<int>(native_), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            why = system_error("cannot read the file", errno);
            return false;
        }
        if (n == 0) break;
        bytes.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
}

bool PlainFile::write_all(std::string_view content, std::string& why) {
    while (!content.empty()) {
        const ssize_t n = ::write(static_cast<int>(native_), content.data(), content.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            why = system_error("cannot write the file", errno);
            return false;
        }
        content.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

bool PlainFile::close(std::string& why) {
    const int result = ::close(static_cast<int>(native_));
    native_ = -1;
    if (result != 0) why = system_error("cannot write the file", errno);
    return result == 0;
}

bool PlainFile::create_parents(const std::string& path, std::string& why) {
    for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        const std::string directory = path.substr(0, slash);
        if (::mkdir(directory.c_str(), 0777) != 0 && errno != EEXIST) {
            why = system_error("cannot create the directory '" + directory + "'", errno);
            return false;
        }
    }
    return true;
}

}  // namespace acp::detail
