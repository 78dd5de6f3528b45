// SPDX-License-Identifier: Apache-2.0
// Parses one incoming line into a JSON document, in place and without heap churn.
//
// The line is parsed where it lies (the framer hands it out writable and NUL-terminated),
// with UTF-8 validation and the iterative parser. Values and the parser's stack live in
// two arenas whose first chunk is preallocated and which are cleared for each message, so
// a typical message allocates nothing. Nesting deeper than max_depth is refused: every
// later walk over the document (serializing error data, decoding ACP types) recurses,
// and an agent must not be able to overflow the host's stack.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "jsonrpc/json.hpp"

namespace acp::detail {

class MessageParser {
public:
    static constexpr int kDefaultMaxDepth = 128;

    explicit MessageParser(int max_depth = kDefaultMaxDepth);
    ~MessageParser();
    MessageParser(const MessageParser&) = delete;
    MessageParser& operator=(const MessageParser&) = delete;

    // Parses a NUL-terminated line (overwriting it). On success the value stays valid
    // until the next parse(); on failure returns nullptr and error() says why.
    const JsonValue* parse(char* line);
    const std::string& error() const { return error_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int max_depth_;
    std::string error_;
};

}  // namespace acp::detail
