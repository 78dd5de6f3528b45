// SPDX-License-Identifier: Apache-2.0
#include "jsonrpc/message_parser.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "support/utf8.hpp"

namespace acp::detail {

namespace {

constexpr std::size_t kArenaBytes = 64 * 1024;

using ParseAllocator = rapidjson::MemoryPoolAllocator<>;
using ParseDocument = rapidjson::GenericDocument<rapidjson::UTF8<>, ParseAllocator, ParseAllocator>;

// UTF-8 is validated before the parse, for the whole line at once (support/utf8.hpp).
// Recursive, not kParseIterativeFlag: the handler refuses depth past max_depth before the
// parser descends, which bounds the recursion, and the recursive parser runs 17 % fewer
// instructions per session/update (bench/session_profile.sh; docs/session-model.md).
constexpr unsigned kParseFlags = rapidjson::kParseInsituFlag;

// Forwards SAX events to the document, refusing to nest deeper than the limit.
class DepthLimitedHandler {
public:
    DepthLimitedHandler(ParseDocument& document, int max_depth) : document_(document), max_depth_(max_depth) {}

    bool Null() { return document_.Null(); }
    bool Bool(bool b) { return document_.Bool(b); }
    bool Int(int i) { return document_.Int(i); }
    bool Uint(unsigned u) { return document_.Uint(u); }
    bool Int64(int64_t i) { return document_.Int64(i); }
    bool Uint64(uint64_t u) { return document_.Uint64(u); }
    bool Double(double d) { return document_.Double(d); }
    bool RawNumber(const char* text, rapidjson::SizeType size, bool copy) {
        return document_.RawNumber(text, size, copy);
    }
    bool String(const char* text, rapidjson::SizeType size, bool copy) { return document_.String(text, size, copy); }
    bool Key(const char* text, rapidjson::SizeType size, bool copy) { return document_.Key(text, size, copy); }
    bool StartObject() { return enter() && document_.StartObject(); }
    bool EndObject(rapidjson::SizeType members) { return --depth_, document_.EndObject(members); }
    bool StartArray() { return enter() && document_.StartArray(); }
    bool EndArray(rapidjson::SizeType elements) { return --depth_, document_.EndArray(elements); }

    bool too_deep() const { return too_deep_; }

private:
    bool enter() {
        if (++depth_ <= max_depth_) return true;
        too_deep_ = true;
        return false;
    }

    ParseDocument& document_;
    int max_depth_;
    int depth_ = 0;
    bool too_deep_ = false;
};

}  // namespace

struct MessageParser::Impl {
    Impl()
        : value_buffer(new char[kArenaBytes]),
          stack_buffer(new char[kArenaBytes]),
          values(value_buffer.get(), kArenaBytes),
          stack(stack_buffer.get(), kArenaBytes),
          document(&values, 1024, &stack) {}

    std::unique_ptr<char[]> value_buffer;
    std::unique_ptr<char[]> stack_buffer;
    ParseAllocator values;
    ParseAllocator stack;
    ParseDocument document;
};

MessageParser::MessageParser(int max_depth) : impl_(new Impl), max_depth_(max_depth) {}

MessageParser::~MessageParser() = default;

const JsonValue* MessageParser::parse(char* line, std::size_t size) {
    // Whatever the previous message left goes at once (no destructors run in the arenas).
    impl_->document.SetNull();
    impl_->values.Clear();
    impl_->stack.Clear();
    error_.clear();
    edges_.clear();
    if (const std::size_t bad = utf8_valid_prefix(std::string_view(line, size)); bad != size) {
        // RapidJSON's words for it, as when it validated.
        error_ = std::string(rapidjson::GetParseError_En(rapidjson::kParseErrorStringInvalidEncoding)) + " at offset " +
                 std::to_string(bad);
        return nullptr;
    }
    // Rare (a JavaScript agent cut a surrogate pair): only such lines take the slow path.
    if (has_surrogate_escape(line, size)) rewrite_lone_surrogates(line, size, edges_);

    ParseDocument& document = impl_->document;
    rapidjson::ParseResult result;
    bool too_deep = false;
    auto generate = [&](ParseDocument& target) {
        DepthLimitedHandler handler(target, max_depth_);
        rapidjson::GenericInsituStringStream<rapidjson::UTF8<>> stream(line);
        rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, ParseAllocator> reader(&impl_->stack);
        result = reader.Parse<kParseFlags>(stream, handler);
        too_deep = handler.too_deep();
        return !result.IsError();
    };
    document.Populate(generate);
    if (!result.IsError()) return &document;
    if (too_deep) {
        error_ = "nested deeper than " + std::to_string(max_depth_) + " levels";
    } else {
        error_ =
            std::string(rapidjson::GetParseError_En(result.Code())) + " at offset " + std::to_string(result.Offset());
    }
    document.SetNull();
    return nullptr;
}

const StringEdgeSurrogates* MessageParser::edge_surrogates(const JsonValue& string) const {
    if (edges_.empty() || !string.IsString()) return nullptr;
    for (const auto& edge : edges_) {
        if (edge.start == string.GetString()) return &edge;
    }
    return nullptr;
}

}  // namespace acp::detail
