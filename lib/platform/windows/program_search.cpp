// SPDX-License-Identifier: Apache-2.0
#include "platform/program_search.hpp"

#include <windows.h>

#include "platform/native_path.hpp"

namespace acp::detail {
namespace {

std::wstring wide_of(const std::string& utf8) {
    int size = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8.c_str(), -1, nullptr, 0);
    if (size <= 0) return {};
    std::wstring wide(static_cast<std::size_t>(size), L'\0');
    ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8.c_str(), -1, wide.data(), size);
    wide.pop_back();
    return wide;
}

}  // namespace

bool is_program_file(const std::string& path) {
    const std::wstring wide = wide_of(path);
    if (wide.empty()) return false;
    const DWORD attributes = ::GetFileAttributesW(wide.c_str());
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
