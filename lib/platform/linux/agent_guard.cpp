// SPDX-License-Identifier: Apache-2.0
#include "platform/linux/agent_guard.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U  // Linux 6.3: ask for an executable memfd where the default is not
#endif

namespace acp::detail {

// Generated at build time from the guard executable (cmake/embed_file.cmake).
extern const unsigned char kAgentGuardImage[];
extern const std::size_t kAgentGuardImageSize;

namespace {

// uv_spawn puts the child's stdio (and the guard's control pipe) on descriptors 0-3
// before it executes: the memfd must sit above them.
constexpr int kLowestGuardFd = 64;

Result<std::string> load_guard() {
    auto failed = [](const char* step) {
        return Status(Errc::spawn_failed,
                      std::string("the agent guard cannot be loaded: ") + step + ": " + std::strerror(errno));
    };
    int fd = ::memfd_create("acp-agent-guard", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
    if (fd < 0 && errno == EINVAL) fd = ::memfd_create("acp-agent-guard", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return failed("memfd_create");
    std::size_t written = 0;
    while (written < kAgentGuardImageSize) {
        ssize_t n = ::write(fd, kAgentGuardImage + written, kAgentGuardImageSize - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd);
            return failed("write");
        }
        written += static_cast<std::size_t>(n);
    }
    // Sealed: nobody holding the descriptor can change what the next spawn executes.
    if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
        ::close(fd);
        return failed("sealing");
    }
    int high = ::fcntl(fd, F_DUPFD_CLOEXEC, kLowestGuardFd);
    ::close(fd);
    if (high < 0) return failed("dup");
    return "/proc/self/fd/" + std::to_string(high);
}

}  // namespace

Result<std::string> agent_guard_path() {
    static std::once_flag once;
    static Result<std::string> path = Status(Errc::internal, "not loaded");
    std::call_once(once, [] { path = load_guard(); });
    return path;
}

}  // namespace acp::detail
