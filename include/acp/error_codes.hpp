// SPDX-License-Identifier: Apache-2.0
// acp/error_codes.hpp — the JSON-RPC and ACP error codes (Status::rpc_code() values).
//
//   if (status.rpc_code() == acp::error_code::resource_not_found) forget(session);
#pragma once

namespace acp::error_code {

// JSON-RPC 2.0
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
// ACP
inline constexpr int auth_required = -32000;
inline constexpr int resource_not_found = -32002;
inline constexpr int unsupported_protocol_version = -32022;
inline constexpr int request_cancelled = -32800;

}  // namespace acp::error_code
