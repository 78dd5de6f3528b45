// SPDX-License-Identifier: Apache-2.0
#include "platform/process_environment.hpp"

#include <string_view>

extern char** environ;

namespace acp::detail {

std::vector<std::string> host_environment() {
    std::vector<std::string> env;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        std::string_view text(*entry);
        if (text.find('=') != std::string_view::npos) env.emplace_back(text);
    }
    return env;
}

}  // namespace acp::detail
