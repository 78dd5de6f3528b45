// SPDX-License-Identifier: Apache-2.0
// Serving a v1 agent's fs methods confined to the session's directories (acp/fs_guard.hpp
// for C hosts): libacp's own handlers, or the path check alone for a host that answers
// ACP_EVENT_CLIENT_REQUEST itself.
#include "acp/error_codes.hpp"
#include "acp/fs_guard.hpp"
#include "capi/barrier.hpp"
#include "capi/json_text.hpp"

using namespace acp;
using namespace acp::capi;

extern "C" {

int acp_client_serve_confined_files(acp_client* client, unsigned int methods, size_t max_file_bytes) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        const unsigned int files = ACP_CLIENT_METHOD_READ_TEXT_FILE | ACP_CLIENT_METHOD_WRITE_TEXT_FILE;
        if ((methods & ~files) != 0) return fail(ACP_EINVAL, "only the ACP_CLIENT_METHOD_*_TEXT_FILE flags");
        ConfinedFilesOptions options;
        options.read = (methods & ACP_CLIENT_METHOD_READ_TEXT_FILE) != 0;
        options.write = (methods & ACP_CLIENT_METHOD_WRITE_TEXT_FILE) != 0;
        if (max_file_bytes != 0) options.max_file_bytes = max_file_bytes;
        return core->run([core, options] {
            if (core->client) serve_confined_files(*core->client, options);
        });
    });
}

int acp_client_confine_path(char** out, int* out_rpc_code, acp_client* client, const char* session_id, const char* path,
                            int for_write) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out_rpc_code != nullptr) *out_rpc_code = 0;
        if (out == nullptr || session_id == nullptr || path == nullptr) {
            return fail(ACP_EINVAL, "out, session_id or path is NULL");
        }
        *out = nullptr;
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        std::optional<Result<std::string>> confined;
        int ran = core->run_sync([&] {
            if (core->client) {
                confined =
                    confine_path(*core->client, session_id, path, for_write != 0 ? PathUse::write : PathUse::read);
            }
        });
        if (ran != ACP_OK) return ran;
        if (!confined) return fail(ACP_ECLOSED, "the client is closed");
        if (!confined->ok()) {
            if (out_rpc_code != nullptr) *out_rpc_code = confined->status().rpc_code();
            const bool missing = confined->status().rpc_code() == error_code::resource_not_found;
            return fail(missing ? ACP_ENOTFOUND : ACP_EINVAL, confined->status().message());
        }
        *out = copy_string(confined->value());
        return ACP_OK;
    });
}

}  // extern "C"
