// SPDX-License-Identifier: Apache-2.0
#include "transport/stderr_collector.hpp"

#include <cstring>
#include <utility>

namespace acp::detail {

StderrCollector::StderrCollector(Logger logger, std::size_t tail_bytes)
    : logger_(std::move(logger)), tail_bytes_(tail_bytes) {}

void StderrCollector::add(const char* data, std::size_t size) {
    if (tail_bytes_ > 0) {
        tail_.append(data, size);
        if (tail_.size() > 2 * tail_bytes_) tail_.erase(0, tail_.size() - tail_bytes_);
    }
    if (!logger_.enabled()) return;
    const char* end = data + size;
    while (data < end) {
        const auto* newline = static_cast<const char*>(std::memchr(data, '\n', static_cast<std::size_t>(end - data)));
        if (newline == nullptr) {
            partial_line_.append(data, static_cast<std::size_t>(end - data));
            // A runaway line without newlines is handed out in pieces, never hoarded.
            if (partial_line_.size() >= 64 * 1024) {
                emit(partial_line_);
                partial_line_.clear();
            }
            return;
        }
        if (partial_line_.empty()) {
            emit(std::string_view(data, static_cast<std::size_t>(newline - data)));
        } else {
            partial_line_.append(data, static_cast<std::size_t>(newline - data));
            emit(partial_line_);
            partial_line_.clear();
        }
        data = newline + 1;
    }
}

void StderrCollector::finish() {
    if (!partial_line_.empty()) emit(partial_line_);
    partial_line_.clear();
}

void StderrCollector::emit(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    logger_(LogLevel::info, log_source::agent_stderr, line);
}

std::string StderrCollector::tail() const {
    if (tail_.size() <= tail_bytes_) return tail_;
    return tail_.substr(tail_.size() - tail_bytes_);
}

}  // namespace acp::detail
