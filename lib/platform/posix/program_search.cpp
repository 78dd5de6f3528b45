// SPDX-License-Identifier: Apache-2.0
#include "platform/program_search.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace acp::detail {

bool is_program_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string find_program(const std::string& tool, const std::string& path_value) {
    std::size_t start = 0;
    while (start <= path_value.size()) {
        std::size_t end = path_value.find(':', start);
        if (end == std::string::npos) end = path_value.size();
        std::string dir = path_value.substr(start, end - start);
        if (!dir.empty() && dir.front() == '/') {
            std::string candidate = dir + "/" + tool;
            if (is_program_file(candidate)) return candidate;
        }
        start = end + 1;
    }
    return {};
}

}  // namespace acp::detail
