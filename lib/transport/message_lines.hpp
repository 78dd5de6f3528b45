// SPDX-License-Identifier: Apache-2.0
// Between message transports and the line-oriented connection.
//
// WebSocket and Streamable HTTP carry one JSON-RPC message per frame or event, while the
// connection above every transport reads NDJSON lines (transport/line_framer.hpp). These
// helpers translate, so the framer's size cap and UTF-8 and JSON checks apply unchanged.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace acp::detail {

// A line break inside a message (pretty-printed JSON, or several SSE data lines) would
// split it into two lines. It becomes a tab: JSON whitespace between tokens and, like the
// line break itself, not allowed inside a string, so a message that was invalid stays so.
inline void flatten_line_breaks(char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == '\n' || data[i] == '\r') data[i] = '\t';
    }
}

// The connection writes whole lines; a message transport sends each as one message.
// Bytes after the last line break wait in `partial` for the next write.
template <class OnMessage>
void split_outgoing_lines(std::string& partial, std::string_view bytes, OnMessage&& on_message) {
    while (!bytes.empty()) {
        std::size_t end = bytes.find('\n');
        if (end == std::string_view::npos) {
            partial.append(bytes);
            return;
        }
        std::string message = std::move(partial);
        partial.clear();
        message.append(bytes.substr(0, end));
        bytes.remove_prefix(end + 1);
        if (!message.empty() && message.back() == '\r') message.pop_back();
        if (!message.empty()) on_message(std::move(message));
    }
}

}  // namespace acp::detail
