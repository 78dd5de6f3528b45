// SPDX-License-Identifier: Apache-2.0
// acp/log.hpp — the log sink a host installs to see what libacp reports.
//
// Everything libacp notices but does not turn into a call result goes here: the agent's
// stderr (line by line), malformed or oversized lines, responses to unknown ids, unknown
// notifications. Nothing bad is dropped silently.
//
//   acp::LogSink sink = [](const acp::LogRecord& r) {
//       std::cerr << acp::log_level_name(r.level) << " [" << r.source << "] " << r.message << "\n";
//   };
#pragma once

#include <functional>
#include <string_view>

#include "acp/export.hpp"

namespace acp {

enum class LogLevel { debug, info, warning, error };

ACP_EXPORT const char* log_level_name(LogLevel level);

// Where a record comes from; the source strings are stable so hosts can filter on them.
namespace log_source {
inline constexpr std::string_view agent_stderr = "agent-stderr";  // a line the agent wrote to stderr
inline constexpr std::string_view transport = "transport";        // process and stream events
inline constexpr std::string_view jsonrpc = "jsonrpc";            // framing and JSON-RPC problems
inline constexpr std::string_view client = "client";              // the Client: negotiation, requests, handlers
inline constexpr std::string_view session = "session";  // session traffic: updates, held, dropped, silent turns
}  // namespace log_source

struct LogRecord {
    LogLevel level;
    std::string_view source;
    std::string_view message;  // valid during the call only
};

using LogSink = std::function<void(const LogRecord&)>;

}  // namespace acp
