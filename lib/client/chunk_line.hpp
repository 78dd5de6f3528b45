// SPDX-License-Identifier: Apache-2.0
// The hot session/update, read straight from the agent's line (internal).
//
// Most of what a streaming agent sends is text: session/update notifications whose update
// is an `agent_message_chunk` / `agent_thought_chunk` / `user_message_chunk` with a plain
// text block, or a `terminal_output_chunk`. scan_chunk_line() recognises exactly those
// lines before any parse and builds no document: it checks that the line is valid JSON of
// exactly that shape (members in any order, JSON whitespace anywhere) and hands out views
// into it, so the router appends the text to the model with one copy.
//
// It declines (std::nullopt, the line untouched) anything else: another or a repeated
// member, `_meta`, annotations, an `id`, an escape in a name or an id, a surrogate escape
// (a split pair is joined on the full path), invalid UTF-8, a syntax error. The full parse
// and decode then take the line, with their validation and error reports, so the model
// and the log are exactly what they would be without this shortcut
// (tests/unit/client/client_fast_path_test.cpp compares the two).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "acp/session.hpp"

namespace acp::detail {

struct ChunkLine {
    std::string_view session_id;
    // Text chunks: user_message, agent_message or agent_thought; terminal output: unknown.
    ItemKind kind = ItemKind::unknown;
    bool terminal = false;
    std::string_view item_id;  // messageId, or terminalId for terminal output
    // The text as written in the line (escapes not yet decoded: see decode_text), or the
    // terminal's base64 data.
    char* payload = nullptr;
    std::size_t payload_size = 0;
    bool escaped = false;

    std::string_view data() const { return std::string_view(payload, payload_size); }
};

// line[size] must be '\0' (the framer's lines are). Never writes to the line; the views
// stay valid as long as the line does.
std::optional<ChunkLine> scan_chunk_line(char* line, std::size_t size);

// A text chunk's text with its escapes decoded, in place in the line (which nothing reads
// afterwards; the full path's in-place parse overwrites it the same way).
std::string_view decode_text(ChunkLine& chunk);

}  // namespace acp::detail
