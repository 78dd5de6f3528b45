// SPDX-License-Identifier: Apache-2.0
// A host's LogSink plus the convenience of not checking whether one is installed.
#pragma once

#include <string_view>
#include <utility>

#include "acp/log.hpp"

namespace acp::detail {

class Logger {
public:
    Logger() = default;
    explicit Logger(LogSink sink) : sink_(std::move(sink)) {}

    void set_sink(LogSink sink) { sink_ = std::move(sink); }
    bool enabled() const { return static_cast<bool>(sink_); }

    void operator()(LogLevel level, std::string_view source, std::string_view message) const {
        if (sink_) sink_(LogRecord{level, source, message});
    }

private:
    LogSink sink_;
};

}  // namespace acp::detail
