// SPDX-License-Identifier: Apache-2.0
#include "platform/windows/user_sid.hpp"

#include <sddl.h>

namespace acp::detail {

std::vector<unsigned char> process_user_sid(HANDLE process) {
    std::vector<unsigned char> sid;
    HANDLE token = nullptr;
    if (!::OpenProcessToken(process, TOKEN_QUERY, &token)) return sid;
    DWORD size = 0;
    ::GetTokenInformation(token, TokenUser, nullptr, 0, &size);
    std::vector<unsigned char> user(size);
    if (size != 0 && ::GetTokenInformation(token, TokenUser, user.data(), size, &size)) {
        PSID found = reinterpret_cast<TOKEN_USER*>(user.data())->User.Sid;
        if (::IsValidSid(found)) {
            const auto* bytes = static_cast<const unsigned char*>(found);
            sid.assign(bytes, bytes + ::GetLengthSid(found));
        }
    }
    ::CloseHandle(token);
    return sid;
}

bool same_sid(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
    if (a.empty() || b.empty()) return false;
    return ::EqualSid(const_cast<unsigned char*>(a.data()), const_cast<unsigned char*>(b.data())) != 0;
}

std::wstring sid_text(const std::vector<unsigned char>& sid) {
    if (sid.empty()) return {};
    wchar_t* text = nullptr;
    if (!::ConvertSidToStringSidW(const_cast<unsigned char*>(sid.data()), &text)) return {};
    std::wstring result(text);
    ::LocalFree(text);
    return result;
}

}  // namespace acp::detail
