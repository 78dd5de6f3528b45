// SPDX-License-Identifier: Apache-2.0
#include "platform/local_rendezvous.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace acp::detail {

namespace {

constexpr const char* kSocketName = "bridge.sock";

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

bool usable_base(const std::string& base, bool for_program) {
    if (base.empty() || base[0] != '/') return false;
    struct stat info {};
    if (::stat(base.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return false;
    // The socket's path must fit a sockaddr_un: base + "/acp-mcp-XXXXXX/bridge.sock".
    if (base.size() + 32 >= sizeof(sockaddr_un{}.sun_path)) return false;
#if defined(ST_NOEXEC)  // Linux and the BSDs; macOS's statvfs has no such flag
    if (for_program) {
        struct statvfs fs {};
        if (::statvfs(base.c_str(), &fs) == 0 && (fs.f_flag & ST_NOEXEC) != 0) return false;
    }
#else
    (void)for_program;
#endif
    return true;
}

}  // namespace

Result<std::unique_ptr<LocalRendezvous>> LocalRendezvous::make(bool for_program) {
    std::vector<std::string> bases;
    for (const char* variable : {"XDG_RUNTIME_DIR", "TMPDIR"}) {
        if (const char* value = std::getenv(variable)) bases.emplace_back(value);
    }
    bases.emplace_back("/tmp");
    for (const std::string& base : bases) {
        if (!usable_base(base, for_program)) continue;
        std::string path = base + "/acp-mcp-XXXXXX";
        if (::mkdtemp(path.data()) != nullptr) {
            std::string address = path + "/" + kSocketName;
            return std::unique_ptr<LocalRendezvous>(new LocalRendezvous(std::move(path), std::move(address)));
        }
    }
    return Status(
        Errc::io_error,
        std::string("no private directory could be made (tried $XDG_RUNTIME_DIR, $TMPDIR and /tmp") +
            (for_program ? "; one mounted noexec needs ACP_MCP_BRIDGE naming an installed acp-mcp-bridge)" : ")"));
}

LocalRendezvous::~LocalRendezvous() {
    ::unlink(address_.c_str());
    for (const std::string& path : written_) ::unlink(path.c_str());
    ::rmdir(directory_.c_str());
}

Result<std::string> LocalRendezvous::write_program(const std::string& name, const unsigned char* image,
                                                   std::size_t size) {
    std::string path = directory_ + "/" + name;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700);
    if (fd < 0) return Status(Errc::io_error, errno_text("cannot write the bridge program"));
    written_.push_back(path);
    std::size_t written = 0;
    while (written < size) {
        ssize_t n = ::write(fd, image + written, size - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            Status failed(Errc::io_error, errno_text("cannot write the bridge program"));
            ::close(fd);
            return failed;
        }
        written += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) return Status(Errc::io_error, errno_text("cannot write the bridge program"));
    return path;
}

}  // namespace acp::detail
