// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/sse_parser.hpp"

namespace acp::detail {

namespace {
constexpr std::size_t kMaxFieldName = 16;  // "data", "event", "id", "retry"
}

void SseParser::feed(const char* data, std::size_t size, SseSink& sink) {
    std::size_t i = 0;
    while (i < size) {
        char c = data[i];
        if (after_cr_) {
            after_cr_ = false;
            if (c == '\n') {
                ++i;
                continue;
            }
        }
        if (c == '\n' || c == '\r') {
            after_cr_ = c == '\r';
            end_line(sink);
            ++i;
            continue;
        }
        switch (state_) {
            case State::line_start:
                if (c == ':') {
                    state_ = State::skip_line;  // a comment
                } else {
                    field_.assign(1, c);
                    state_ = State::field;
                }
                ++i;
                break;
            case State::field:
                if (c == ':') {
                    state_ = field_ == "data" ? State::skip_space : State::skip_line;
                } else if (field_.size() >= kMaxFieldName) {
                    state_ = State::skip_line;
                } else {
                    field_.push_back(c);
                    // A UTF-8 byte order mark before a line is dropped (as the SDK's parser does).
                    if (field_ == "\xEF\xBB\xBF") state_ = State::line_start;
                }
                ++i;
                break;
            case State::skip_space:
                begin_field_value(sink);
                state_ = State::data_value;
                if (c == ' ') ++i;
                break;
            case State::data_value: {
                std::size_t end = i;
                while (end < size && data[end] != '\n' && data[end] != '\r') ++end;
                sink.on_sse_data(data + i, end - i);
                i = end;
                break;
            }
            case State::skip_line:
                while (i < size && data[i] != '\n' && data[i] != '\r') ++i;
                break;
        }
    }
}

void SseParser::begin_field_value(SseSink& sink) {
    if (event_has_data_) sink.on_sse_data("\t", 1);  // the spec joins data lines with LF
    event_has_data_ = true;
}

void SseParser::end_line(SseSink& sink) {
    switch (state_) {
        case State::line_start:  // a blank line ends the event
            if (event_has_data_) {
                event_has_data_ = false;
                sink.on_sse_event_end();
            }
            break;
        case State::field:  // a field name alone: "data" means an empty data line
            if (field_ == "data") begin_field_value(sink);
            break;
        case State::skip_space:  // "data:" with nothing after it
            begin_field_value(sink);
            break;
        default: break;
    }
    field_.clear();
    state_ = State::line_start;
}

void SseParser::finish(SseSink& sink) {
    if (state_ != State::line_start) end_line(sink);
    if (event_has_data_) {
        event_has_data_ = false;
        sink.on_sse_event_end();
    }
}

}  // namespace acp::detail
