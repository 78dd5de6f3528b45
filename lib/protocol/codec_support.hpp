// SPDX-License-Identifier: Apache-2.0
// Building blocks of the generated protocol codecs (internal): the JSON path carried
// through a decode for error messages, decoders for primitives and containers, writers
// for raw JSON and unknown members.
//
// A DecodePath is a chain of stack frames, one per object member or array element being
// decoded; it costs nothing until an error turns it into text ("$.update.content[2].type").
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "acp/json.hpp"
#include "acp/status.hpp"
#include "jsonrpc/json.hpp"

namespace acp::detail {

// The payload of the variant a union's kind() names. The switch on kind() guarantees it
// exists; saying so lets the optimizer (and -Wnull-dereference) see it too.
template <class T>
const T& must(const T* payload) {
    if (payload == nullptr) throw std::logic_error("union payload does not match its kind");
    return *payload;
}

class DecodePath {
public:
    DecodePath() = default;  // the root, "$"

    DecodePath key(std::string_view name) const { return DecodePath(this, name, 0, false); }
    DecodePath index(std::size_t position) const { return DecodePath(this, {}, position, true); }
    std::string to_string() const;

private:
    DecodePath(const DecodePath* parent, std::string_view name, std::size_t position, bool is_index)
        : parent_(parent), key_(name), index_(position), is_index_(is_index) {}

    const DecodePath* parent_ = nullptr;
    std::string_view key_;
    std::size_t index_ = 0;
    bool is_index_ = false;
};

// How the members of an object are decoded into a struct. `skip` and `outer_skip` name
// members someone else owns (the discriminators of the unions the struct is the payload
// of); unknown members go to extra_fields only when collect_extra is set (a struct whose
// members are flattened into another object leaves them to the outermost struct).
struct FieldsContext {
    std::string_view skip;
    bool collect_extra = true;
    std::string_view outer_skip;
};

// Whether a member name belongs to the enclosing object's own properties.
using OwnMemberFn = bool (*)(std::string_view);

struct ArrayRules {
    bool skip_invalid = false;  // x-deserialize-skip-invalid-items: drop bad elements
    std::size_t min_items = 0;
};

// Errors: Errc::protocol_error with rpc code -32602 (invalid params), message "<path>: <what>".
Status decode_error(const DecodePath& path, std::string_view what);
Status expected(const DecodePath& path, std::string_view type);
Status missing(const DecodePath& path);
Status unknown_value(const DecodePath& path, std::string_view value);
Status no_variant(const DecodePath& path, std::string_view variants, const Status& first_error);

Status decode_value(const JsonValue& json, std::string& out, const DecodePath& path);
Status decode_value(const JsonValue& json, bool& out, const DecodePath& path);
Status decode_value(const JsonValue& json, double& out, const DecodePath& path);
Status decode_value(const JsonValue& json, int64_t& out, const DecodePath& path);
Status decode_value(const JsonValue& json, uint64_t& out, const DecodePath& path);
Status decode_value(const JsonValue& json, RawJson& out, const DecodePath& path);  // any value, null too

Status decode_string(const JsonValue& json, std::string& out, const DecodePath& path, std::size_t min_length);
Status decode_int64(const JsonValue& json, int64_t& out, const DecodePath& path, int64_t min, int64_t max);
Status decode_uint64(const JsonValue& json, uint64_t& out, const DecodePath& path, uint64_t min, uint64_t max);
Status decode_double(const JsonValue& json, double& out, const DecodePath& path, double min, double max);
Status decode_raw_object(const JsonValue& json, RawJson& out, const DecodePath& path);

RawJson raw_of(const JsonValue& json);
// The members of object whose names own_member rejects (all of them when it is null).
RawJson raw_without(const JsonValue& object, OwnMemberFn own_member);
// The object without the member named key (all of it when key is empty).
RawJson raw_without_key(const JsonValue& object, std::string_view key);

template <class T, class DecodeItem>
Status decode_array(const JsonValue& json, std::vector<T>& out, const DecodePath& path, ArrayRules rules,
                    DecodeItem decode_item) {
    if (!json.IsArray()) return expected(path, "array");
    out.clear();
    out.reserve(json.Size());
    for (rapidjson::SizeType i = 0; i < json.Size(); ++i) {
        T item{};
        Status status = decode_item(json[i], item, path.index(i));
        if (!status) {
            if (rules.skip_invalid) continue;
            return status;
        }
        out.push_back(std::move(item));
    }
    if (out.size() < rules.min_items) {
        return decode_error(path, "expected at least " + std::to_string(rules.min_items) + " item(s)");
    }
    return {};
}

template <class T, class DecodeItem>
Status decode_map(const JsonValue& json, std::vector<std::pair<std::string, T>>& out, const DecodePath& path,
                  DecodeItem decode_item) {
    if (!json.IsObject()) return expected(path, "object");
    out.clear();
    out.reserve(json.MemberCount());
    for (auto member = json.MemberBegin(); member != json.MemberEnd(); ++member) {
        const std::string_view key = string_view_of(member->name);
        T item{};
        if (Status status = decode_item(member->value, item, path.key(key)); !status) return status;
        out.emplace_back(std::string(key), std::move(item));
    }
    return {};
}

inline void write_key(JsonWriter& writer, std::string_view key) {
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}
// Integral values within 2^53 are written as integers (as JavaScript peers do); values
// that are not finite, which JSON cannot carry, as null.
void write_double(JsonWriter& writer, double value);
// Writes the value compactly, whatever spacing its text has: a pretty-printed value must
// never put a raw newline on the wire (CLIENT-MUST-01). An empty RawJson is written as
// null; so is text that is not one JSON value in valid UTF-8, which a RawJsonAudit in scope
// records (the client audits every request before sending, so it refuses such a request
// rather than sending the null).
void write_raw(JsonWriter& writer, const RawJson& value);

// While alive, records on this thread the first RawJson that write_raw (and the unknown
// variant writers) found unusable. Audits nest; the innermost records.
class RawJsonAudit {
public:
    RawJsonAudit();
    ~RawJsonAudit();
    RawJsonAudit(const RawJsonAudit&) = delete;
    RawJsonAudit& operator=(const RawJsonAudit&) = delete;
    // Errc::invalid_argument naming the first bad value, or success.
    const Status& status() const { return status_; }

private:
    friend void note_invalid_raw(std::string_view text, std::string_view why);
    RawJsonAudit* outer_;
    Status status_;
};
void note_invalid_raw(std::string_view text, std::string_view why);
void write_extra_fields(JsonWriter& writer, const std::vector<std::pair<std::string, RawJson>>& fields);
// An unknown variant of a tagged union: the raw object with the discriminator first.
void write_unknown_object(JsonWriter& writer, std::string_view discriminator, std::string_view tag, const RawJson& raw);
// The same for a union flattened into an enclosing object: the members only.
void write_unknown_members(JsonWriter& writer, std::string_view discriminator, std::string_view tag,
                           const RawJson& raw);

}  // namespace acp::detail
