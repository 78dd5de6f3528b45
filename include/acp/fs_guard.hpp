// SPDX-License-Identifier: Apache-2.0
// acp/fs_guard.hpp — serving a v1 agent's fs/read_text_file and fs/write_text_file without
// letting it reach outside the session's directories.
//
// The agent chooses the path, and the agent is untrusted (docs/untrusted-agent.md). A path
// is served only when it is absolute and, after resolving symlinks and `..` (for a file
// that does not exist yet: of its deepest existing ancestor), lies inside the cwd or an
// additional directory that the host itself sent for a session this client opened
// (Client::session_roots). Everything else gets a JSON-RPC error saying why (docs/v1.md,
// "Serving files safely").
//
// The easy default serves both methods from disk:
//
//   acp::serve_confined_files(*client);   // before initialize: advertises fs to v1 agents
//
// A host that serves from its editor buffers checks the path the same way first:
//
//   client->on_read_text_file([&](const acp::v1::ReadTextFileRequest& r, acp::ClientMethodResponder out) {
//       auto path = acp::confine_path(*client, r.sessionId, r.path, acp::PathUse::read);
//       if (!path) return out.fail(path.status().rpc_code(), path.status().message());
//       out.respond(acp::v1::ReadTextFileResponse{editor.text_of(*path)});
//   });
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "acp/client.hpp"
#include "acp/client_v1.hpp"
#include "acp/export.hpp"
#include "acp/status.hpp"

namespace acp {

enum class PathUse {
    read,   // the file must exist
    write,  // the file and missing parent directories may be created
};

// The real path (symlinks and `..` resolved) that `path` names inside the roots, or a
// Status whose rpc_code() is the JSON-RPC error to answer: error_code::invalid_params for a
// relative path, a path outside the roots, or one that cannot be resolved;
// error_code::resource_not_found for a file to read that does not exist (inside the roots).
ACP_EXPORT Result<std::string> confine_path(const SessionRoots& roots, std::string_view path, PathUse use);
// The same against the roots of a session this client holds; any other session id (one
// the agent made up, one only listed, one closed) gets error_code::resource_not_found.
ACP_EXPORT Result<std::string> confine_path(const Client& client, std::string_view session_id, std::string_view path,
                                            PathUse use);

struct ConfinedFilesOptions {
    bool read = true;   // serve (and advertise) fs/read_text_file
    bool write = true;  // serve (and advertise) fs/write_text_file
    // Reads: at most this many bytes of a file are looked at (a larger file can still be
    // read in parts with line/limit inside them); writes: longer content is refused.
    std::size_t max_file_bytes = 16u * 1024u * 1024u;
    // Writes: missing parent directories (inside the roots) are created.
    bool create_directories = true;
};

// Installs on_read_text_file / on_write_text_file handlers that serve confined files
// from disk: reads honour `line` (1-based) and `limit` (lines), and invalid UTF-8 becomes
// U+FFFD; writes replace the whole file. Runs on the loop thread (the files are small).
ACP_EXPORT void serve_confined_files(Client& client, ConfinedFilesOptions options = {});

// The handlers serve_confined_files installs, for a host that wraps them (to refresh an
// editor buffer after a write, say).
ACP_EXPORT void read_confined_file(const Client& client, const v1::ReadTextFileRequest& request,
                                   const ClientMethodResponder& responder, const ConfinedFilesOptions& options = {});
ACP_EXPORT void write_confined_file(const Client& client, const v1::WriteTextFileRequest& request,
                                    const ClientMethodResponder& responder, const ConfinedFilesOptions& options = {});

}  // namespace acp
