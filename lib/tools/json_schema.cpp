// SPDX-License-Identifier: Apache-2.0
#include "tools/json_schema.hpp"

#include <string>

namespace acp::detail::tools {

namespace {

// How deep the walk goes before it gives up; a host schema that nests deeper than this
// is refused rather than risking the stack.
constexpr int kMaxDepth = 64;

bool is_type(const JsonValue& value, std::string_view type) {
    if (type == "object") return value.IsObject();
    if (type == "array") return value.IsArray();
    if (type == "string") return value.IsString();
    if (type == "boolean") return value.IsBool();
    if (type == "null") return value.IsNull();
    if (type == "number") return value.IsNumber();
    if (type == "integer") {
        if (value.IsInt64() || value.IsUint64()) return true;
        if (!value.IsDouble()) return false;
        const double d = value.GetDouble();
        return d == static_cast<double>(static_cast<long long>(d));
    }
    return true;  // an unknown type name constrains nothing we know of
}

std::size_t code_points(const JsonValue& string) {
    std::size_t count = 0;
    const char* text = string.GetString();
    for (rapidjson::SizeType i = 0; i < string.GetStringLength(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++count;
    }
    return count;
}

bool json_equal(const JsonValue& a, const JsonValue& b) {
    if (a.IsNumber() && b.IsNumber()) return a.GetDouble() == b.GetDouble();
    return a == b;
}

std::string describe_type(const JsonValue& value) {
    if (value.IsObject()) return "an object";
    if (value.IsArray()) return "an array";
    if (value.IsString()) return "a string";
    if (value.IsBool()) return "a boolean";
    if (value.IsNull()) return "null";
    return "a number";
}

class Walker {
public:
    Status check(const JsonValue& schema, const JsonValue& value, const std::string& path, int depth) {
        if (depth > kMaxDepth) return fail(path, "the schema nests too deeply");
        if (schema.IsBool()) return schema.GetBool() ? Status() : fail(path, "no value is allowed here");
        if (!schema.IsObject()) return Status();
        if (const JsonValue* type = find_member(schema, "type")) {
            bool matched = false;
            if (type->IsString()) {
                matched = is_type(value, string_view_of(*type));
            } else if (type->IsArray()) {
                for (const auto& t : type->GetArray())
                    matched = matched || (t.IsString() && is_type(value, string_view_of(t)));
            } else {
                matched = true;
            }
            if (!matched) return fail(path, "expected type " + to_json_text(*type) + ", got " + describe_type(value));
        }
        if (const JsonValue* options = find_member(schema, "enum"); options && options->IsArray()) {
            bool found = false;
            for (const auto& option : options->GetArray()) found = found || json_equal(option, value);
            if (!found) return fail(path, "not one of " + to_json_text(*options));
        }
        if (const JsonValue* expected = find_member(schema, "const"); expected && !json_equal(*expected, value)) {
            return fail(path, "must be " + to_json_text(*expected));
        }
        if (value.IsString()) {
            const std::size_t length = code_points(value);
            if (const JsonValue* min = find_member(schema, "minLength");
                min && min->IsNumber() && length < min->GetDouble()) {
                return fail(path, "shorter than minLength " + to_json_text(*min));
            }
            if (const JsonValue* max = find_member(schema, "maxLength");
                max && max->IsNumber() && length > max->GetDouble()) {
                return fail(path, "longer than maxLength " + to_json_text(*max));
            }
        }
        if (value.IsNumber()) {
            const double number = value.GetDouble();
            if (const JsonValue* min = find_member(schema, "minimum");
                min && min->IsNumber() && number < min->GetDouble()) {
                return fail(path, "below minimum " + to_json_text(*min));
            }
            if (const JsonValue* max = find_member(schema, "maximum");
                max && max->IsNumber() && number > max->GetDouble()) {
                return fail(path, "above maximum " + to_json_text(*max));
            }
        }
        if (value.IsArray()) return check_array(schema, value, path, depth);
        if (value.IsObject()) return check_object(schema, value, path, depth);
        return Status();
    }

private:
    static Status fail(const std::string& path, const std::string& why) {
        return Status(Errc::invalid_argument, path + ": " + why);
    }

    Status check_array(const JsonValue& schema, const JsonValue& value, const std::string& path, int depth) {
        const double size = value.Size();
        if (const JsonValue* min = find_member(schema, "minItems"); min && min->IsNumber() && size < min->GetDouble()) {
            return fail(path, "fewer items than minItems " + to_json_text(*min));
        }
        if (const JsonValue* max = find_member(schema, "maxItems"); max && max->IsNumber() && size > max->GetDouble()) {
            return fail(path, "more items than maxItems " + to_json_text(*max));
        }
        const JsonValue* items = find_member(schema, "items");
        if (items == nullptr || !(items->IsObject() || items->IsBool())) return Status();
        for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
            if (Status s = check(*items, value[i], path + "[" + std::to_string(i) + "]", depth + 1); !s) return s;
        }
        return Status();
    }

    Status check_object(const JsonValue& schema, const JsonValue& value, const std::string& path, int depth) {
        const JsonValue* properties = find_member(schema, "properties");
        if (properties != nullptr && !properties->IsObject()) properties = nullptr;
        if (const JsonValue* required = find_member(schema, "required"); required && required->IsArray()) {
            for (const auto& name : required->GetArray()) {
                if (name.IsString() && find_member(value, string_view_of(name)) == nullptr) {
                    return fail(path, "missing required property " + to_json_text(name));
                }
            }
        }
        const JsonValue* additional = find_member(schema, "additionalProperties");
        for (auto member = value.MemberBegin(); member != value.MemberEnd(); ++member) {
            const std::string_view name = string_view_of(member->name);
            const std::string child = path + "." + std::string(name);
            const JsonValue* property = properties ? find_member(*properties, name) : nullptr;
            if (property != nullptr) {
                if (Status s = check(*property, member->value, child, depth + 1); !s) return s;
            } else if (additional != nullptr) {
                if (additional->IsBool() && !additional->GetBool()) {
                    return fail(path, "unexpected property " + to_json_text(member->name));
                }
                if (Status s = check(*additional, member->value, child, depth + 1); !s) return s;
            }
        }
        return Status();
    }
};

}  // namespace

Result<std::shared_ptr<const JsonSchema>> JsonSchema::parse(std::string_view text) {
    std::shared_ptr<JsonSchema> schema(new JsonSchema());
    schema->document_.Parse(text.data(), text.size());
    if (schema->document_.HasParseError()) return Status(Errc::invalid_argument, "the schema is not JSON");
    if (!schema->document_.IsObject()) return Status(Errc::invalid_argument, "the schema is not a JSON object");
    return std::shared_ptr<const JsonSchema>(std::move(schema));
}

Status JsonSchema::validate(const JsonValue& instance) const { return Walker().check(document_, instance, "$", 0); }

}  // namespace acp::detail::tools
