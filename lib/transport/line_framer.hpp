// SPDX-License-Identifier: Apache-2.0
// Splits a byte stream into NDJSON lines (one JSON-RPC message per line).
//
// Handles partial reads, many lines per read, CRLF endings and empty lines. A line
// longer than the limit is never buffered whole: once it passes the limit the rest is
// skipped up to the next newline, and the sink hears about it with the first bytes of
// the line (enough to find a JSON-RPC id) and its full length.
//
// Lines are handed out NUL-terminated in writable memory, so the JSON parser can parse
// them in place. A line that sits wholly inside one read is handed out without a copy.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace acp::detail {

class LineSink {
public:
    virtual ~LineSink() = default;
    // A complete line without its line ending; line[size] == '\0'. Valid during the call.
    virtual void on_line(char* line, std::size_t size) = 0;
    // A line over the limit was skipped. head: its first bytes; total_size: its full length.
    virtual void on_oversized_line(std::string_view head, std::size_t total_size) = 0;
    // The sink asks the framer to stop handing out lines from the current buffer.
    virtual bool stopped() const { return false; }
};

class LineFramer {
public:
    static constexpr std::size_t kDefaultMaxLineBytes = 32u * 1024u * 1024u;  // as the TS SDK
    static constexpr std::size_t kOversizedHeadBytes = 4096;

    explicit LineFramer(std::size_t max_line_bytes = kDefaultMaxLineBytes);

    // Feeds bytes; data must stay writable during the call (lines are terminated in place).
    void feed(char* data, std::size_t size, LineSink& sink);
    // The stream ended: a last line without a newline is still handed out.
    void finish(LineSink& sink);

    std::size_t max_line_bytes() const { return max_line_bytes_; }
    std::size_t buffered_bytes() const { return partial_.size(); }

private:
    void emit(char* line, std::size_t size, LineSink& sink);
    void take_fragment(const char* data, std::size_t size);
    void end_line(LineSink& sink);

    std::size_t max_line_bytes_;
    std::string partial_;           // the start of a line split across reads
    bool skipping_ = false;         // inside a line that is over the limit
    std::size_t skipped_size_ = 0;  // full length of that line so far
};

}  // namespace acp::detail
