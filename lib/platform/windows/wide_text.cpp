// SPDX-License-Identifier: Apache-2.0
#include "platform/windows/wide_text.hpp"

#include <windows.h>

#include "support/utf8.hpp"

namespace acp::detail {

Result<std::wstring> to_wide(std::string_view utf8, const std::string& what) {
    // Checked here rather than with MB_ERR_INVALID_CHARS: the same rules as everywhere
    // else in libacp (no surrogates, no overlong forms), whichever Windows runs.
    if (!utf8_valid(utf8)) return Status(Errc::invalid_argument, what + " is not valid UTF-8");
    if (utf8.find('\0') != std::string_view::npos) {
        return Status(Errc::invalid_argument, what + " contains a NUL byte");
    }
    if (utf8.empty()) return std::wstring();
    int size = ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
    if (size <= 0) return Status(Errc::invalid_argument, what + " cannot be converted to UTF-16");
    std::wstring wide(static_cast<std::size_t>(size), L'\0');
    ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), &wide[0], size);
    return wide;
}

std::string to_utf8(std::wstring_view wide) {
    if (wide.empty()) return std::string();
    int size =
        ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), nullptr, 0, nullptr, nullptr);
    if (size <= 0) return std::string();
    std::string utf8(static_cast<std::size_t>(size), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), &utf8[0], size, nullptr, nullptr);
    return utf8;
}

}  // namespace acp::detail
