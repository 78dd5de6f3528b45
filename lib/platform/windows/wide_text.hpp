// SPDX-License-Identifier: Apache-2.0
// UTF-8 in libacp's API, UTF-16 at the Windows boundary (CreateProcessW, _wfopen, ...).
//
// Text going to Windows is checked first: invalid UTF-8 or a NUL byte (which would cut a
// wide C string short without a word) is refused with an error naming what it was, never
// passed on mangled. Text coming from Windows may hold unpaired surrogates (file names
// can); those become U+FFFD, as there is no UTF-8 for them.
//
//   auto path = to_wide(options.cwd, "the working directory");
//   if (!path) return path.status();
//   ::SetCurrentDirectoryW(path->c_str());
#pragma once

#include <string>
#include <string_view>

#include "acp/status.hpp"

namespace acp::detail {

// `what` names the text in the error, e.g. "argument 2".
Result<std::wstring> to_wide(std::string_view utf8, const std::string& what);
std::string to_utf8(std::wstring_view wide);

}  // namespace acp::detail
