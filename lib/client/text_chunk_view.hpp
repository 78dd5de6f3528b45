// SPDX-License-Identifier: Apache-2.0
// The hot session/update, read where it was parsed (internal).
//
// Most of what a streaming agent sends is message text: `*_message_chunk` /
// `agent_thought_chunk` updates whose content is a plain text block (and terminal output
// chunks; read_terminal_chunk() likewise). read_text_chunk()
// recognises exactly that shape in the in-place parsed params and hands out views into
// the line, so the router can append the text to the model without building an owned
// UpdateSessionNotification (the text is copied once, into the model). Anything it does
// not recognise in full (`_meta`, extra members, annotations, another block type, a wrong
// type anywhere) returns nullopt and takes the generated decode, so validation and the
// model are exactly what the full path gives.
#pragma once

#include <optional>
#include <string_view>

#include "acp/session.hpp"
#include "jsonrpc/json.hpp"

namespace acp::detail {

struct TextChunkView {
    std::string_view session_id;
    ItemKind kind = ItemKind::unknown;  // user_message, agent_message or agent_thought
    std::string_view message_id;
    const JsonValue* text = nullptr;  // the text's string value (for its edge surrogates)

    std::string_view text_view() const { return string_view_of(*text); }
};

// params: the session/update params. Views stay valid until the next parse.
std::optional<TextChunkView> read_text_chunk(const JsonValue& params);

// A terminal_output_chunk with exactly {terminalId, data} (both strings): the other
// streamed update of a coding agent.
struct TerminalChunkView {
    std::string_view session_id;
    std::string_view terminal_id;
    std::string_view data;  // base64, decoded by the model
};
std::optional<TerminalChunkView> read_terminal_chunk(const JsonValue& params);

// Either of the two, read in one pass over the params (what the receive path calls for
// every session/update); both empty = neither, decode it.
struct StreamedChunk {
    std::optional<TextChunkView> text;
    std::optional<TerminalChunkView> terminal;
};
StreamedChunk read_streamed_chunk(const JsonValue& params);

}  // namespace acp::detail
