// SPDX-License-Identifier: Apache-2.0
#include "acp/log.hpp"

namespace acp {

const char* log_level_name(LogLevel level) {
    switch (level) {
        case LogLevel::debug: return "debug";
        case LogLevel::info: return "info";
        case LogLevel::warning: return "warning";
        case LogLevel::error: return "error";
    }
    return "unknown";
}

}  // namespace acp
