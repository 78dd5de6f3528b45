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

bool same_variable_name(std::string_view a, std::string_view b) { return a == b; }

}  // namespace acp::detail
