// SPDX-License-Identifier: Apache-2.0
#include "client/agent_tolerance.hpp"

namespace acp::detail {

namespace {

bool is_object_with_string(const JsonValue* object, const char* key) {
    const JsonValue* member = object != nullptr && object->IsObject() ? find_member(*object, key) : nullptr;
    return member != nullptr && member->IsString();
}

bool lacks_command_type(const JsonValue& holder) {
    const JsonValue* commands = holder.IsObject() ? find_member(holder, "availableCommands") : nullptr;
    if (commands == nullptr || !commands->IsArray()) return false;
    for (const auto& command : commands->GetArray()) {
        if (command.IsObject() && find_member(command, "type") == nullptr) return true;
    }
    return false;
}

void add_command_types(JsonValue& holder, rapidjson::Document::AllocatorType& allocator) {
    auto commands = holder.FindMember("availableCommands");
    for (auto& command : commands->value.GetArray()) {
        if (command.IsObject() && find_member(command, "type") == nullptr) {
            command.AddMember("type", "command", allocator);
        }
    }
}

}  // namespace

const JsonValue& with_agent_info(const JsonValue& result, rapidjson::Document& scratch) {
    const JsonValue* info = result.IsObject() ? find_member(result, "info") : nullptr;
    if (is_object_with_string(info, "name") && is_object_with_string(info, "version")) return result;
    if (!result.IsObject()) return result;
    auto& allocator = scratch.GetAllocator();
    scratch.CopyFrom(result, allocator);
    auto member = scratch.FindMember("info");
    if (member == scratch.MemberEnd()) {
        scratch.AddMember("info", JsonValue(rapidjson::kObjectType), allocator);
        member = scratch.FindMember("info");
    } else if (!member->value.IsObject()) {
        member->value.SetObject();
    }
    JsonValue& repaired = member->value;
    if (!is_object_with_string(&repaired, "name")) {
        repaired.RemoveMember("name");
        repaired.AddMember("name", "unknown", allocator);
    }
    if (!is_object_with_string(&repaired, "version")) {
        repaired.RemoveMember("version");
        repaired.AddMember("version", "", allocator);
    }
    return scratch;
}

const JsonValue& with_command_types(const JsonValue& holder, rapidjson::Document& scratch) {
    if (!lacks_command_type(holder)) return holder;
    scratch.CopyFrom(holder, scratch.GetAllocator());
    add_command_types(scratch, scratch.GetAllocator());
    return scratch;
}

const JsonValue& with_command_types_in_update(const JsonValue& params, rapidjson::Document& scratch) {
    const JsonValue* update = params.IsObject() ? find_member(params, "update") : nullptr;
    if (update == nullptr || !lacks_command_type(*update)) return params;
    scratch.CopyFrom(params, scratch.GetAllocator());
    add_command_types(scratch.FindMember("update")->value, scratch.GetAllocator());
    return scratch;
}

namespace {

template <class Entity>
void clear_if_malformed(const JsonValue& json, Entity& entity) {
    if (!entity.capabilities.is_absent()) return;
    const JsonValue* given = json.IsObject() ? find_member(json, "capabilities") : nullptr;
    if (given != nullptr) entity.capabilities.set_null();
}

}  // namespace

void malformed_capabilities_clear(const JsonValue& json, v2::ToolCallUpdate& update) {
    clear_if_malformed(json, update);
}
void malformed_capabilities_clear(const JsonValue& json, v2::TerminalUpdate& update) {
    clear_if_malformed(json, update);
}

void malformed_capabilities_clear(const JsonValue& params, v2::SessionUpdate& update) {
    const JsonValue* json = params.IsObject() ? find_member(params, "update") : nullptr;
    if (json == nullptr) return;
    if (auto* tool = update.tool_call_update()) malformed_capabilities_clear(*json, *tool);
    if (auto* terminal = update.terminal_update()) malformed_capabilities_clear(*json, *terminal);
}

}  // namespace acp::detail
