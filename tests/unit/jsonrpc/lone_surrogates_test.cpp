// SPDX-License-Identifier: Apache-2.0
// The prescan that keeps ordinary lines off the lone-surrogate rewrite: it must say yes
// exactly when a line holds a `\uD800`..`\uDFFF` escape, wherever it sits relative to the
// 16-byte blocks the scan reads, and never for an escaped backslash followed by "uD83D".
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "jsonrpc/lone_surrogates.hpp"

using acp::detail::has_surrogate_escape;

namespace {

// The plain definition: walk escape by escape.
bool reference(const std::string& line) {
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
        if (line[i] != '\\') continue;
        if (line[i + 1] == 'u' && i + 3 < line.size() && (line[i + 2] == 'd' || line[i + 2] == 'D')) {
            const char c = line[i + 3];
            if ((c >= '8' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) return true;
        }
        ++i;  // the escaped character
    }
    return false;
}

}  // namespace

TEST_CASE("surrogate prescan: every offset, and the escapes that only look like one") {
    for (const std::string escape : {R"(\uD83D)", R"(\udc00)", R"(\uDbFf)", R"(\\uD83D)", R"(\\\uD83D)", R"(\uD7FF)",
                                     R"(\ud)", R"(\uD8)", R"(\u0041)", R"(\n\t\")"}) {
        for (std::size_t offset = 0; offset < 40; ++offset) {
            const std::string line = std::string(offset, 'a') + escape + std::string(40 - offset, 'b');
            CHECK_MESSAGE(has_surrogate_escape(line.data(), line.size()) == reference(line), line);
            const std::string at_end = std::string(offset, 'a') + escape;  // cut by the end of the line
            CHECK_MESSAGE(has_surrogate_escape(at_end.data(), at_end.size()) == reference(at_end), at_end);
        }
    }
}

TEST_CASE("surrogate prescan: random lines of backslashes, u, d and hex agree with the plain walk") {
    std::mt19937 random(19);
    const std::string alphabet = R"(\\\udD8fFa0")";
    for (int round = 0; round < 20000; ++round) {
        std::string line(random() % 70, ' ');
        for (char& c : line) c = alphabet[random() % alphabet.size()];
        CHECK_MESSAGE(has_surrogate_escape(line.data(), line.size()) == reference(line), line);
    }
}
