// SPDX-License-Identifier: Apache-2.0
#include "jsonrpc/traffic_redaction.hpp"

#include "jsonrpc/json.hpp"

namespace acp::detail {

namespace {

void redact_name_value_list(JsonValue* list, rapidjson::Document::AllocatorType& allocator) {
    if (list == nullptr || !list->IsArray()) return;
    for (auto& entry : list->GetArray()) {
        if (!entry.IsObject()) continue;
        auto value = entry.FindMember("value");
        if (value != entry.MemberEnd()) {
            value->value.SetString(kRedactedValue.data(), static_cast<rapidjson::SizeType>(kRedactedValue.size()),
                                   allocator);
        }
    }
}

JsonValue* find_mutable(JsonValue& object, const char* key) {
    auto it = object.FindMember(key);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

// Walks the whole message: mcpServers may sit in params (session/new, session/resume)
// or anywhere an extension puts them.
void redact_tree(JsonValue& value, rapidjson::Document::AllocatorType& allocator) {
    if (value.IsArray()) {
        for (auto& item : value.GetArray()) redact_tree(item, allocator);
        return;
    }
    if (!value.IsObject()) return;
    for (auto& member : value.GetObject()) {
        if (member.name == "mcpServers" && member.value.IsArray()) {
            for (auto& server : member.value.GetArray()) {
                if (!server.IsObject()) continue;
                redact_name_value_list(find_mutable(server, "env"), allocator);
                redact_name_value_list(find_mutable(server, "headers"), allocator);
            }
        } else {
            redact_tree(member.value, allocator);
        }
    }
}

}  // namespace

bool contains_secrets(std::string_view line) { return line.find("\"mcpServers\"") != std::string_view::npos; }

std::string redact_secrets(std::string_view line) {
    rapidjson::Document document;
    document.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
    if (document.HasParseError()) return std::string(line);
    redact_tree(document, document.GetAllocator());
    return to_json_text(document);
}

}  // namespace acp::detail
