// SPDX-License-Identifier: Apache-2.0
// Parses one incoming line into a JSON document, in place and without heap churn.
//
// The line is parsed where it lies (the framer hands it out writable and NUL-terminated),
// with UTF-8 validation and RapidJSON's recursive parser. Values and the parser's stack
// live in two arenas whose first chunk is preallocated and which are cleared for each
// message, so a typical message allocates nothing. Nesting deeper than max_depth is
// refused as the parser enters it, so the parse itself recurses at most max_depth levels,
// and so does every later walk over the document (serializing error data, decoding ACP
// types): an agent cannot overflow the host's stack. Lone UTF-16 surrogate
// escapes become U+FFFD (jsonrpc/lone_surrogates.hpp), so every string is valid UTF-8.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "jsonrpc/json.hpp"
#include "jsonrpc/lone_surrogates.hpp"

namespace acp::detail {

class MessageParser {
public:
    static constexpr int kDefaultMaxDepth = 128;

    explicit MessageParser(int max_depth = kDefaultMaxDepth);
    ~MessageParser();
    MessageParser(const MessageParser&) = delete;
    MessageParser& operator=(const MessageParser&) = delete;

    // Parses a line of size bytes with line[size] == '\0' (overwriting it). On success the
    // value stays valid until the next parse(); on failure returns nullptr and error() says why.
    const JsonValue* parse(char* line, std::size_t size);
    const std::string& error() const { return error_; }

    // For a string value of the last parsed message: the lone surrogates it lost at its
    // edges (now U+FFFD), or nullptr when it lost none there.
    const StringEdgeSurrogates* edge_surrogates(const JsonValue& string) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int max_depth_;
    std::string error_;
    std::vector<StringEdgeSurrogates> edges_;
};

}  // namespace acp::detail
