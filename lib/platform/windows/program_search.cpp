// SPDX-License-Identifier: Apache-2.0
#include "platform/program_search.hpp"

#include <windows.h>

#include "platform/native_path.hpp"
#include "platform/windows/wide_text.hpp"

namespace acp::detail {
bool is_program_file(const std::string& path) {
    const auto wide = to_wide(path, "the program");
    if (!wide) return false;
    const DWORD attributes = ::GetFileAttributesW(wide->c_str());
    return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

std::string find_program(const std::string& tool, const std::string& path_value) {
    std::size_t start = 0;
    while (start <= path_value.size()) {
        std::size_t end = path_value.find(';', start);
        if (end == std::string::npos) end = path_value.size();
        std::string dir = path_value.substr(start, end - start);
        // PATH entries may be quoted when they hold a ';'.
        if (dir.size() >= 2 && dir.front() == '"' && dir.back() == '"') dir = dir.substr(1, dir.size() - 2);
        if (is_native_absolute(dir)) {
            if (!is_separator(dir.back())) dir += '\\';
            for (const char* extension : {".exe", ".cmd", ".bat", ".com"}) {
                std::string candidate = dir + tool + extension;
                if (is_program_file(candidate)) return candidate;
            }
        }
        start = end + 1;
    }
    return {};
}

}  // namespace acp::detail
