// SPDX-License-Identifier: Apache-2.0
// Writes the arguments it got, as the C runtime split its command line (wmain), to stdout:
// each in UTF-8 followed by a NUL byte, argv[0] left out. What command_line_test.cpp and
// the .cmd agent test compare with what they passed.
#include <windows.h>

#include <fcntl.h>
#include <io.h>

#include <cstdio>
#include <string>

int wmain(int argc, wchar_t** argv) {
    ::_setmode(::_fileno(stdout), _O_BINARY);
    for (int i = 1; i < argc; ++i) {
        int size = ::WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, nullptr, 0, nullptr, nullptr);
        std::string text(static_cast<std::size_t>(size), '\0');  // with the NUL
        ::WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, &text[0], size, nullptr, nullptr);
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    std::fflush(stdout);
    return 0;
}
