// SPDX-License-Identifier: Apache-2.0
// The parts of a remote agent's URL that the transports need, and a form safe to log.
#pragma once

#include <string>

#include "acp/status.hpp"

namespace acp::detail {

enum class RemoteKind { websocket, http };

struct RemoteUrl {
    RemoteKind kind = RemoteKind::http;
    bool tls = false;
    std::string host;  // without IPv6 brackets
    int port = 0;
    std::string path;      // starts with '/', query included
    std::string full;      // the URL as given (may carry credentials: never log it)
    std::string redacted;  // scheme://host:port/path, no user:password, no query
};

// Errc::unsupported for another scheme, invalid_argument for a malformed URL.
Result<RemoteUrl> parse_remote_url(const std::string& url);

}  // namespace acp::detail
