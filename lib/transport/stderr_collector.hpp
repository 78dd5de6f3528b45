// SPDX-License-Identifier: Apache-2.0
// Collects an agent's stderr: each complete line goes to the log sink, and the last
// bytes are kept so an unexpected exit can be reported with what the agent said.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "support/logger.hpp"

namespace acp::detail {

class StderrCollector {
public:
    StderrCollector(Logger logger, std::size_t tail_bytes);

    void set_logger(Logger logger) { logger_ = std::move(logger); }
    void add(const char* data, std::size_t size);
    void finish();  // hands out a last line that had no newline
    std::string tail() const;

private:
    void emit(std::string_view line);

    Logger logger_;
    std::size_t tail_bytes_;
    std::string tail_;          // grows to twice tail_bytes_ before it is trimmed
    std::string partial_line_;  // a line not finished yet, capped like the tail
};

}  // namespace acp::detail
