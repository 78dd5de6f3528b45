// SPDX-License-Identifier: Apache-2.0
#include "jsonrpc/envelope_peek.hpp"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <string>

namespace acp::detail {

namespace {

// SAX handler that only looks at the members of the outermost object.
class PeekHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, PeekHandler> {
public:
    explicit PeekHandler(EnvelopePeek& out) : out_(out) {}

    bool Default() { return after_value(); }
    bool Int(int value) { return scalar_id(RequestId::integer(value)); }
    bool Uint(unsigned value) { return scalar_id(RequestId::integer(value)); }
    bool Int64(int64_t value) { return scalar_id(RequestId::integer(value)); }
    bool String(const char* text, rapidjson::SizeType size, bool) {
        if (depth_ == 1 && key_ == "id") out_.id = RequestId::string(std::string(text, size));
        return after_value();
    }
    bool Key(const char* text, rapidjson::SizeType size, bool) {
        if (depth_ == 1) {
            key_.assign(text, size);
            if (key_ == "method") out_.has_method = true;
            if (key_ == "result" || key_ == "error") out_.has_result_or_error = true;
        }
        return true;
    }
    bool StartObject() { return ++depth_, true; }
    bool EndObject(rapidjson::SizeType) { return --depth_, after_value(); }
    bool StartArray() { return ++depth_, true; }
    bool EndArray(rapidjson::SizeType) { return --depth_, after_value(); }

private:
    bool scalar_id(RequestId id) {
        if (depth_ == 1 && key_ == "id") out_.id = std::move(id);
        return after_value();
    }
    bool after_value() { return true; }

    EnvelopePeek& out_;
    int depth_ = 0;
    std::string key_;
};

}  // namespace

EnvelopePeek peek_envelope(std::string_view text) {
    EnvelopePeek peek;
    PeekHandler handler(peek);
    rapidjson::MemoryStream stream(text.data(), text.size());
    rapidjson::Reader reader;
    // The text is expected to end early or be broken: what was seen before that counts.
    reader.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseStopWhenDoneFlag>(stream, handler);
    return peek;
}

}  // namespace acp::detail
