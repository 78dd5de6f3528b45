// SPDX-License-Identifier: Apache-2.0
#include "transport/line_framer.hpp"

#include <algorithm>
#include <cstring>

namespace acp::detail {

LineFramer::LineFramer(std::size_t max_line_bytes)
    : max_line_bytes_(max_line_bytes == 0 ? kDefaultMaxLineBytes : max_line_bytes) {}

void LineFramer::feed(char* data, std::size_t size, LineSink& sink) {
    char* cursor = data;
    char* const end = data + size;
    while (cursor < end && !sink.stopped()) {
        auto* newline = static_cast<char*>(std::memchr(cursor, '\n', static_cast<std::size_t>(end - cursor)));
        if (newline == nullptr) {
            take_fragment(cursor, static_cast<std::size_t>(end - cursor));
            return;
        }
        const auto length = static_cast<std::size_t>(newline - cursor);
        if (partial_.empty() && !skipping_) {
            if (length <= max_line_bytes_ + 1) {  // +1: a CR that end_line would strip
                *newline = '\0';
                emit(cursor, length, sink);
            } else {
                sink.on_oversized_line(std::string_view(cursor, std::min(length, kOversizedHeadBytes)), length);
            }
            cursor = newline + 1;
            continue;
        }
        take_fragment(cursor, length);
        end_line(sink);
        cursor = newline + 1;
    }
}

void LineFramer::take_fragment(const char* data, std::size_t size) {
    if (!skipping_ && partial_.size() + size > max_line_bytes_ + 1) {
        // Over the limit: keep only the head, count the rest.
        skipping_ = true;
        skipped_size_ = partial_.size();
        if (partial_.size() < kOversizedHeadBytes) {
            partial_.append(data, std::min(size, kOversizedHeadBytes - partial_.size()));
        } else {
            partial_.resize(kOversizedHeadBytes);
        }
        partial_.shrink_to_fit();
    } else if (!skipping_) {
        partial_.append(data, size);
        return;
    } else if (partial_.size() < kOversizedHeadBytes) {
        partial_.append(data, std::min(size, kOversizedHeadBytes - partial_.size()));
    }
    skipped_size_ += size;
}

void LineFramer::end_line(LineSink& sink) {
    if (skipping_) {
        sink.on_oversized_line(partial_, skipped_size_);
        skipping_ = false;
        skipped_size_ = 0;
        partial_.clear();
        return;
    }
    partial_.push_back('\0');
    emit(&partial_[0], partial_.size() - 1, sink);
    partial_.clear();
}

void LineFramer::emit(char* line, std::size_t size, LineSink& sink) {
    if (size > 0 && line[size - 1] == '\r') line[--size] = '\0';
    if (size == 0) return;  // empty lines carry nothing
    if (size > max_line_bytes_) {
        sink.on_oversized_line(std::string_view(line, std::min(size, kOversizedHeadBytes)), size);
        return;
    }
    sink.on_line(line, size);
}

void LineFramer::finish(LineSink& sink) {
    if (partial_.empty() && !skipping_) return;
    end_line(sink);
}

}  // namespace acp::detail
