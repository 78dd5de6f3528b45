// SPDX-License-Identifier: Apache-2.0
// Reads what it can of a JSON-RPC envelope from text that is not a whole valid message:
// the head of an oversized line, or a line that failed to parse. The top-level "id",
// whether there is a "method", "result" or "error". This lets the connection answer or
// fail the right request instead of leaving it to hang.
#pragma once

#include <optional>
#include <string_view>

#include "jsonrpc/request_id.hpp"

namespace acp::detail {

struct EnvelopePeek {
    std::optional<RequestId> id;
    bool has_method = false;
    bool has_result_or_error = false;

    bool looks_like_request() const { return has_method && id.has_value(); }
    bool looks_like_response() const { return !has_method && has_result_or_error && id.has_value(); }
};

EnvelopePeek peek_envelope(std::string_view text);

}  // namespace acp::detail
