// SPDX-License-Identifier: Apache-2.0
#include "protocol/codec_support.hpp"

#include <rapidjson/error/en.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace acp::detail {

namespace {

constexpr int kInvalidParams = -32602;

void write_members_except(JsonWriter& writer, const JsonValue& object, std::string_view skip) {
    for (auto member = object.MemberBegin(); member != object.MemberEnd(); ++member) {
        const std::string_view key = string_view_of(member->name);
        if (key == skip) continue;
        write_key(writer, key);
        member->value.Accept(writer);
    }
}

}  // namespace

std::string DecodePath::to_string() const {
    std::vector<const DecodePath*> frames;
    for (const DecodePath* frame = this; frame->parent_ != nullptr; frame = frame->parent_) frames.push_back(frame);
    std::string text = "$";
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
        if ((*it)->is_index_) {
            text += '[';
            text += std::to_string((*it)->index_);
            text += ']';
        } else {
            text += '.';
            text.append((*it)->key_.data(), (*it)->key_.size());
        }
    }
    return text;
}

Status decode_error(const DecodePath& path, std::string_view what) {
    std::string message = path.to_string();
    message += ": ";
    message.append(what.data(), what.size());
    return Status(Errc::protocol_error, std::move(message)).with_rpc_code(kInvalidParams);
}

Status expected(const DecodePath& path, std::string_view type) {
    return decode_error(path, "expected " + std::string(type));
}

Status missing(const DecodePath& path) { return decode_error(path, "required member missing"); }

Status unknown_value(const DecodePath& path, std::string_view value) {
    return decode_error(path, "unknown value \"" + std::string(value) + "\"");
}

Status no_variant(const DecodePath& path, std::string_view variants, const Status& first_error) {
    std::string what = "expected " + std::string(variants);
    if (!first_error.ok()) what += " (" + first_error.message() + ")";
    return decode_error(path, what);
}

Status decode_value(const JsonValue& json, std::string& out, const DecodePath& path) {
    if (!json.IsString()) return expected(path, "string");
    out.assign(json.GetString(), json.GetStringLength());
    return {};
}

Status decode_value(const JsonValue& json, bool& out, const DecodePath& path) {
    if (!json.IsBool()) return expected(path, "boolean");
    out = json.GetBool();
    return {};
}

Status decode_value(const JsonValue& json, double& out, const DecodePath& path) {
    if (!json.IsNumber()) return expected(path, "number");
    out = json.GetDouble();
    return {};
}

Status decode_value(const JsonValue& json, int64_t& out, const DecodePath& path) {
    if (!json.IsInt64()) return expected(path, "integer");
    out = json.GetInt64();
    return {};
}

Status decode_value(const JsonValue& json, uint64_t& out, const DecodePath& path) {
    if (!json.IsUint64()) return expected(path, "unsigned integer");
    out = json.GetUint64();
    return {};
}

Status decode_value(const JsonValue& json, RawJson& out, const DecodePath&) {
    out = raw_of(json);
    return {};
}

Status decode_string(const JsonValue& json, std::string& out, const DecodePath& path, std::size_t min_length) {
    if (Status status = decode_value(json, out, path); !status) return status;
    if (out.size() < min_length) return decode_error(path, "string too short");
    return {};
}

Status decode_int64(const JsonValue& json, int64_t& out, const DecodePath& path, int64_t min, int64_t max) {
    if (Status status = decode_value(json, out, path); !status) return status;
    if (out < min || out > max) {
        return decode_error(path, "out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    }
    return {};
}

Status decode_uint64(const JsonValue& json, uint64_t& out, const DecodePath& path, uint64_t min, uint64_t max) {
    if (Status status = decode_value(json, out, path); !status) return status;
    if (out < min || out > max) {
        return decode_error(path, "out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    }
    return {};
}

Status decode_double(const JsonValue& json, double& out, const DecodePath& path, double min, double max) {
    if (Status status = decode_value(json, out, path); !status) return status;
    if (out < min || out > max) return decode_error(path, "out of range");
    return {};
}

Status decode_raw_object(const JsonValue& json, RawJson& out, const DecodePath& path) {
    if (!json.IsObject()) return expected(path, "object");
    out = raw_of(json);
    return {};
}

RawJson raw_of(const JsonValue& json) { return RawJson{to_json_text(json)}; }

RawJson raw_without(const JsonValue& object, OwnMemberFn own_member) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    writer.StartObject();
    for (auto member = object.MemberBegin(); member != object.MemberEnd(); ++member) {
        const std::string_view key = string_view_of(member->name);
        if (own_member != nullptr && own_member(key)) continue;
        write_key(writer, key);
        member->value.Accept(writer);
    }
    writer.EndObject();
    return RawJson{std::string(buffer.GetString(), buffer.GetSize())};
}

RawJson raw_without_key(const JsonValue& object, std::string_view key) {
    if (key.empty() || find_member(object, key) == nullptr) return raw_of(object);
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    writer.StartObject();
    write_members_except(writer, object, key);
    writer.EndObject();
    return RawJson{std::string(buffer.GetString(), buffer.GetSize())};
}

void write_double(JsonWriter& writer, double value) {
    constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
    if (!std::isfinite(value)) {
        writer.Null();
    } else if (std::trunc(value) == value && std::fabs(value) <= kExactIntegers) {
        writer.Int64(static_cast<int64_t>(value));
    } else {
        writer.Double(value);
    }
}

namespace {

thread_local RawJsonAudit* current_audit = nullptr;

constexpr unsigned kRawParseFlags = rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag;

// Parses host- or agent-supplied raw text; records it with the audit when it is no JSON.
bool parse_raw(const RawJson& raw, rapidjson::Document& document) {
    document.Parse<kRawParseFlags>(raw.text.data(), raw.text.size());
    if (!document.HasParseError()) return true;
    note_invalid_raw(raw.text, rapidjson::GetParseError_En(document.GetParseError()));
    return false;
}

}  // namespace

RawJsonAudit::RawJsonAudit() : outer_(current_audit) { current_audit = this; }
RawJsonAudit::~RawJsonAudit() { current_audit = outer_; }

void note_invalid_raw(std::string_view text, std::string_view why) {
    if (current_audit == nullptr || !current_audit->status_.ok()) return;
    constexpr std::size_t kShown = 60;
    std::string shown = to_json_text(JsonValue(rapidjson::StringRef(text.data(), std::min(text.size(), kShown))));
    current_audit->status_ = Status(Errc::invalid_argument, "raw JSON that is not one JSON value (" + std::string(why) +
                                                                "): " + shown + (text.size() > kShown ? "..." : ""));
}

void write_raw(JsonWriter& writer, const RawJson& value) {
    if (value.text.empty()) {
        writer.Null();
        return;
    }
    rapidjson::Document document;
    if (!parse_raw(value, document)) {
        writer.Null();
        return;
    }
    document.Accept(writer);
}

void write_extra_fields(JsonWriter& writer, const std::vector<std::pair<std::string, RawJson>>& fields) {
    for (const auto& field : fields) {
        write_key(writer, field.first);
        write_raw(writer, field.second);
    }
}

void write_unknown_object(JsonWriter& writer, std::string_view discriminator, std::string_view tag,
                          const RawJson& raw) {
    rapidjson::Document document;
    const bool parsed = parse_raw(raw, document) && document.IsObject();
    if (parsed) {
        const JsonValue* stored = find_member(document, discriminator);
        if (stored != nullptr && stored->IsString() && string_view_of(*stored) == tag) {
            document.Accept(writer);  // as it was, compact
            return;
        }
    }
    writer.StartObject();
    write_key(writer, discriminator);
    write_string(writer, tag);
    if (parsed) write_members_except(writer, document, discriminator);
    writer.EndObject();
}

void write_unknown_members(JsonWriter& writer, std::string_view discriminator, std::string_view tag,
                           const RawJson& raw) {
    write_key(writer, discriminator);
    write_string(writer, tag);
    rapidjson::Document document;
    if (parse_raw(raw, document) && document.IsObject()) write_members_except(writer, document, discriminator);
}

}  // namespace acp::detail
