// SPDX-License-Identifier: Apache-2.0
// The user a process runs as, by its SID (Windows): for the tool bridge's checks that its
// peer is this same user and that its private directory admits no one else.
//
//   std::vector<unsigned char> mine = process_user_sid(::GetCurrentProcess());
//   if (mine.empty() || !same_sid(mine, process_user_sid(peer))) refuse();
#pragma once

#include <windows.h>

#include <string>
#include <vector>

namespace acp::detail {

// The SID's bytes; empty when the process's token cannot be read.
std::vector<unsigned char> process_user_sid(HANDLE process);
bool same_sid(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b);
// "S-1-5-21-...", for an SDDL string; empty on failure.
std::wstring sid_text(const std::vector<unsigned char>& sid);

}  // namespace acp::detail
