// SPDX-License-Identifier: Apache-2.0
// Where a host and a helper program it hands to an agent meet (the stdio tool bridge,
// tools/bridge_carrier.hpp): an address to listen at with uv_pipe_bind, and a private
// directory to write the helper into. Gone, it removes what it wrote and its directory.
//
//   POSIX    a fresh directory made by mkdtemp (0700: only this user enters it) under
//            $XDG_RUNTIME_DIR, else $TMPDIR, else /tmp; the address is a Unix socket in it,
//            so its path must fit a sockaddr_un. With a program to write, a base mounted
//            noexec is passed over (where the system tells, statvfs's ST_NOEXEC).
//   Windows  a fresh directory "acp-mcp-<random hex>" under the user's temporary directory
//            (GetTempPathW: within the user's profile, whose ACL keeps other users out); the
//            address is a named pipe "\\.\pipe\acp-mcp-<random hex>". A program still
//            running cannot be deleted: what a closed carrier's exiting bridges kept, the
//            next rendezvous made removes.
//
//   auto place = LocalRendezvous::make(true);
//   auto program = (*place)->write_program("acp-mcp-bridge", image, image_size);
//   uv_pipe_bind(&listener, (*place)->address().c_str());
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "acp/status.hpp"

namespace acp::detail {

class LocalRendezvous {
public:
    // for_program: a program will be written and run from the directory. Fails naming
    // where it looked.
    static Result<std::unique_ptr<LocalRendezvous>> make(bool for_program);
    ~LocalRendezvous();
    LocalRendezvous(const LocalRendezvous&) = delete;
    LocalRendezvous& operator=(const LocalRendezvous&) = delete;

    const std::string& address() const { return address_; }
    // Writes an executable image into the directory under name (".exe" added on Windows),
    // executable by this user only; its absolute path.
    Result<std::string> write_program(const std::string& name, const unsigned char* image, std::size_t size);

private:
    explicit LocalRendezvous(std::string directory, std::string address)
        : directory_(std::move(directory)), address_(std::move(address)) {}

    std::string directory_;
    std::string address_;
    std::vector<std::string> written_;
    std::vector<std::intptr_t> held_;  // Windows: the programs' handles, held open while it lives
};

}  // namespace acp::detail
