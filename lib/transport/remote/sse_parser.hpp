// SPDX-License-Identifier: Apache-2.0
// An incremental parser for server-sent events (the agent's side of Streamable HTTP).
//
// Only `data` fields matter to ACP: each event's data is one JSON-RPC message. The parser
// holds nothing but a field name of a few bytes: data is handed to the sink as it arrives,
// so the size of an event is bounded by whoever consumes it, not here. Lines may end in
// CRLF, LF or CR; comments (keep-alives) and other fields are skipped; several data lines
// of one event reach the sink joined by a tab (see transport/message_lines.hpp).
#pragma once

#include <cstddef>
#include <string>

namespace acp::detail {

class SseSink {
public:
    virtual ~SseSink() = default;
    // More of the current event's data.
    virtual void on_sse_data(const char* data, std::size_t size) = 0;
    // The event ended (only events that carried data are reported).
    virtual void on_sse_event_end() = 0;
};

class SseParser {
public:
    void feed(const char* data, std::size_t size, SseSink& sink);
    // The stream ended: an event without its closing blank line is still reported.
    void finish(SseSink& sink);

private:
    enum class State { line_start, field, skip_space, data_value, skip_line };
    void end_line(SseSink& sink);
    void begin_field_value(SseSink& sink);

    State state_ = State::line_start;
    std::string field_;  // the field name being read (at most a few bytes)
    bool event_has_data_ = false;
    bool after_cr_ = false;  // a CR ended the last line: a following LF belongs to it
};

}  // namespace acp::detail
