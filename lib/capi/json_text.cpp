// SPDX-License-Identifier: Apache-2.0
#include "capi/json_text.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace acp::capi {

int object_json(const char* json, RawJson& out, const char* what) {
    if (json == nullptr) return ACP_OK;
    rapidjson::Document document;
    document.Parse(json);
    if (document.HasParseError() || !document.IsObject()) {
        return fail(ACP_EINVAL, std::string(what) + " must be a JSON object");
    }
    out.text = detail::to_json_text(document);
    return ACP_OK;
}

char* copy_string(const std::string& text) {
    char* copy = static_cast<char*>(std::malloc(text.size() + 1));
    if (copy == nullptr) throw std::bad_alloc();
    std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

std::optional<std::string> string_member(const rapidjson::Value& object, const char* key) {
    const auto* value = detail::find_member(object, key);
    if (value == nullptr || !value->IsString()) return std::nullopt;
    return std::string(value->GetString(), value->GetStringLength());
}

std::optional<std::string> json_member(const rapidjson::Value& object, const char* key) {
    const auto* value = detail::find_member(object, key);
    if (value == nullptr || value->IsNull()) return std::nullopt;
    return detail::to_json_text(*value);
}

}  // namespace acp::capi
