// SPDX-License-Identifier: Apache-2.0
#include "client/v1_adapter.hpp"

#include <algorithm>
#include <utility>

#include "protocol/agent_features.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v2/codec.hpp"

namespace acp::detail {

namespace {

using Document = rapidjson::Document;
using Allocator = Document::AllocatorType;
namespace v1codec = acp::v1::codec;
namespace v2codec = acp::v2::codec;

// Most v1 pieces have the v2 shape on the wire (content blocks, locations, plan entries,
// permission options): they cross over as JSON, encoded by one codec and decoded by the
// other, so whatever v2 checks is checked.
template <class T>
Document dom_of_v1(const T& value) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    v1codec::encode(writer, value);
    Document document;
    document.Parse(buffer.GetString(), buffer.GetSize());
    return document;
}

template <class T>
Document dom_of_v2(const T& value) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    v2codec::encode(writer, value);
    Document document;
    document.Parse(buffer.GetString(), buffer.GetSize());
    return document;
}

template <class To, class From>
Status lift_as_json(const From& from, To& to) {
    return v2codec::decode(dom_of_v1(from), to);
}

template <class To, class From>
Status lower_as_json(const From& from, To& to) {
    return v1codec::decode(dom_of_v2(from), to);
}

bool is_string(const JsonValue* value, std::string_view text) {
    return value != nullptr && value->IsString() && string_view_of(*value) == text;
}

// Renames a member in place (value kept; the member moves to the end, which no decoder minds).
void rename_member(JsonValue& object, const char* from, const char* to, Allocator& allocator) {
    if (!object.IsObject()) return;
    auto it = object.FindMember(from);
    if (it == object.MemberEnd()) return;
    JsonValue value;
    value.Swap(it->value);
    object.EraseMember(it);
    object.AddMember(rapidjson::StringRef(to), value, allocator);
}

void set_string(JsonValue& object, const char* key, std::string_view text, Allocator& allocator) {
    JsonValue value(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
    auto it = object.FindMember(key);
    if (it != object.MemberEnd()) {
        it->value = value;
    } else {
        object.AddMember(rapidjson::StringRef(key), value, allocator);
    }
}

// v1 `tool_call_update`: null means "unchanged", never "clear" (CLIENT-GUIDE §10).
void drop_nulls(JsonValue& object) {
    for (auto it = object.MemberBegin(); it != object.MemberEnd();) {
        it = it->value.IsNull() ? object.EraseMember(it) : it + 1;
    }
}

// v1 diff {path, oldText?, newText} → v2 {changes: [{operation, path, fileType}]}, with
// v1's path, oldText (when a string) and newText kept beside it: v2 has no member for the
// texts, and no patch can be made from them (some agents send the replaced excerpt of a
// file, not the whole file: no line numbers). Hosts review edits with them (docs/v1.md);
// they are bounded like all agent text, by the line size.
void lift_tool_content(JsonValue& update, Allocator& allocator) {
    auto content = update.FindMember("content");
    if (content == update.MemberEnd() || !content->value.IsArray()) return;
    for (auto& entry : content->value.GetArray()) {
        if (!entry.IsObject() || !is_string(find_member(entry, "type"), "diff")) continue;
        const JsonValue* path = find_member(entry, "path");
        const JsonValue* old_text = find_member(entry, "oldText");
        JsonValue change(rapidjson::kObjectType);
        const bool added = old_text == nullptr || old_text->IsNull();
        change.AddMember("operation", rapidjson::StringRef(added ? "add" : "modify"), allocator);
        if (path != nullptr) change.AddMember("path", JsonValue(*path, allocator), allocator);
        change.AddMember("fileType", "text", allocator);
        JsonValue changes(rapidjson::kArrayType);
        changes.PushBack(change, allocator);
        JsonValue lifted(rapidjson::kObjectType);
        lifted.AddMember("type", "diff", allocator);
        lifted.AddMember("changes", changes, allocator);
        if (const JsonValue* meta = find_member(entry, "_meta"))
            lifted.AddMember("_meta", JsonValue(*meta, allocator), allocator);
        if (path != nullptr) lifted.AddMember("path", JsonValue(*path, allocator), allocator);
        if (old_text != nullptr && old_text->IsString()) {
            lifted.AddMember("oldText", JsonValue(*old_text, allocator), allocator);
        }
        if (const JsonValue* new_text = find_member(entry, "newText")) {
            lifted.AddMember("newText", JsonValue(*new_text, allocator), allocator);
        }
        entry = lifted;
    }
}

// v1 config option {id, ..., options: [{group, ...}]} → v2 {configId, ..., [{groupId, ...}]}.
Status lift_option(const JsonValue& v1_option, v2::SessionConfigOption& out) {
    Document option;
    option.CopyFrom(v1_option, option.GetAllocator());
    rename_member(option, "id", "configId", option.GetAllocator());
    auto options = option.FindMember("options");
    if (options != option.MemberEnd() && options->value.IsArray()) {
        for (auto& entry : options->value.GetArray()) rename_member(entry, "group", "groupId", option.GetAllocator());
    }
    return v2codec::decode(option, out);
}

v2::SessionConfigOption mode_option(const v1::SessionModeState& modes) {
    v2::SessionConfigOption option;
    option.configId = kV1ModeOptionId;
    option.name = "Mode";
    option.category = v2::SessionConfigOptionCategory("mode");
    std::vector<v2::SessionConfigSelectOption> values;
    for (const auto& mode : modes.availableModes) {
        v2::SessionConfigSelectOption value;
        value.value = mode.id;
        value.name = mode.name;
        if (mode.description.has_value()) value.description = *mode.description;
        values.push_back(std::move(value));
    }
    v2::SessionConfigSelect select;
    select.currentValue = modes.currentModeId;
    select.options = v2::SessionConfigSelectOptions::make_options(std::move(values));
    option.type = v2::SessionConfigOptionType::make_select(std::move(select));
    return option;
}

}  // namespace

v1::InitializeRequest v1_initialize_request(const v2::Implementation& info, const V1ClientFeatures& features) {
    v1::InitializeRequest request;
    request.protocolVersion = 1;
    v1::Implementation client_info;
    client_info.name = info.name;
    client_info.version = info.version;
    if (info.title.has_value()) client_info.title = *info.title;
    request.clientInfo = std::move(client_info);
    // Only v1 members: clientInfo already says who the client is, and a custom member at
    // the root of a spec-defined object is not allowed (CLIENT-GUIDE 1.5).
    v1::ClientCapabilities capabilities;
    v1::FileSystemCapabilities fs;
    fs.readTextFile = features.read_text_file;
    fs.writeTextFile = features.write_text_file;
    capabilities.fs = fs;
    capabilities.terminal = features.terminal;
    v1::AuthCapabilities auth;
    auth.terminal = features.auth_terminal;
    capabilities.auth = auth;
    // The model holds boolean options like select ones, notices and compactions as it
    // does for v2 agents (v1 agents send those only when told, CLIENT-GUIDE 10).
    v1::ClientSessionCapabilities session;
    v1::SessionConfigOptionsCapabilities config;
    config.boolean = v1::BooleanConfigOptionCapabilities{};
    session.configOptions = std::move(config);
    session.notices = v1::NoticeCapabilities{"{}"};
    session.compaction = v1::CompactionCapabilities{"{}"};
    capabilities.session = std::move(session);
    if (features.elicitation_form || features.elicitation_url) {
        v1::ElicitationCapabilities elicitation;
        if (features.elicitation_form) elicitation.form = v1::ElicitationFormCapabilities{};
        if (features.elicitation_url) elicitation.url = v1::ElicitationUrlCapabilities{};
        capabilities.elicitation = std::move(elicitation);
    }
    request.clientCapabilities = std::move(capabilities);
    return request;
}

Status lift_initialize(const v1::InitializeResponse& in, v2::InitializeResponse& out) {
    out = v2::InitializeResponse();
    out.protocolVersion = in.protocolVersion;
    if (in.agentInfo.has_value()) {
        if (Status s = lift_as_json(*in.agentInfo, out.info); !s) return s;
    }
    if (out.info.name.empty()) out.info.name = "unknown";  // agentInfo is optional in v1
    const v1::AgentCapabilities capabilities = in.agentCapabilities.value_or(v1::AgentCapabilities{});
    // A v1 agent always takes new/prompt/cancel/update and stdio MCP servers (§10).
    v2::SessionCapabilities session;
    v2::PromptCapabilities prompt;
    if (capabilities.promptCapabilities) {
        if (capabilities.promptCapabilities->image.value_or(false)) prompt.image = v2::PromptImageCapabilities{};
        if (capabilities.promptCapabilities->audio.value_or(false)) prompt.audio = v2::PromptAudioCapabilities{};
        if (capabilities.promptCapabilities->embeddedContext.value_or(false)) {
            prompt.embeddedContext = v2::PromptEmbeddedContextCapabilities{};
        }
    }
    session.prompt = std::move(prompt);
    v2::McpCapabilities mcp;
    mcp.stdio = v2::McpStdioCapabilities{};
    if (capabilities.mcpCapabilities && capabilities.mcpCapabilities->http.value_or(false)) {
        mcp.http = v2::McpHttpCapabilities{};
    }
    if (capabilities.mcpCapabilities && v1_mcp_acp(*capabilities.mcpCapabilities)) {
        mcp.extra_fields.emplace_back("acp", RawJson{"{}"});  // unstable: v2's session.mcp.acp
    }
    session.mcp = std::move(mcp);
    if (capabilities.sessionCapabilities) {
        if (capabilities.sessionCapabilities->delete_.has_value()) session.delete_ = v2::SessionDeleteCapabilities{};
        if (capabilities.sessionCapabilities->additionalDirectories.has_value()) {
            session.additionalDirectories = v2::SessionAdditionalDirectoriesCapabilities{};
        }
    }
    v2::AgentCapabilities lifted;
    lifted.session = std::move(session);
    out.capabilities = std::move(lifted);
    if (in.authMethods) {
        std::vector<v2::AuthMethod> methods;
        for (const auto& method : *in.authMethods) {
            // v1: `id`, `type` optional (absent = agent), terminal env a {name: value} map.
            Document json = dom_of_v1(method);
            rename_member(json, "id", "methodId", json.GetAllocator());
            if (find_member(json, "type") == nullptr) json.AddMember("type", "agent", json.GetAllocator());
            auto env = json.FindMember("env");
            if (env != json.MemberEnd() && env->value.IsObject()) {
                JsonValue list(rapidjson::kArrayType);
                for (auto& variable : env->value.GetObject()) {
                    JsonValue entry(rapidjson::kObjectType);
                    entry.AddMember("name", JsonValue(variable.name, json.GetAllocator()), json.GetAllocator());
                    entry.AddMember("value", JsonValue(variable.value, json.GetAllocator()), json.GetAllocator());
                    list.PushBack(entry, json.GetAllocator());
                }
                env->value = list;
            }
            v2::AuthMethod lifted_method;
            if (Status s = v2codec::decode(json, lifted_method); !s) return s;
            methods.push_back(std::move(lifted_method));
        }
        out.authMethods = std::move(methods);
    }
    return Status();
}

Status lower_mcp_servers(const std::optional<std::vector<v2::McpServer>>& in, std::vector<v1::McpServer>& out,
                         std::vector<RawJson>& acp_entries) {
    out.clear();
    acp_entries.clear();
    if (!in) return Status();  // v1 requires the member: [] goes out
    for (const auto& server : *in) {
        Document json = dom_of_v2(server);
        auto& allocator = json.GetAllocator();
        if (server.tag() == "acp") {
            acp_entries.push_back(RawJson{to_json_text(json)});
            continue;
        }
        if (is_string(find_member(json, "type"), "stdio")) {
            json.RemoveMember("type");  // v1 stdio servers carry no type
            if (find_member(json, "args") == nullptr)
                json.AddMember("args", JsonValue(rapidjson::kArrayType), allocator);
            if (find_member(json, "env") == nullptr) json.AddMember("env", JsonValue(rapidjson::kArrayType), allocator);
        } else if (find_member(json, "headers") == nullptr) {
            json.AddMember("headers", JsonValue(rapidjson::kArrayType), allocator);
        }
        v1::McpServer lowered;
        if (Status s = v1codec::decode(json, lowered); !s) return s;
        out.push_back(std::move(lowered));
    }
    return Status();
}

void write_with_acp_servers(JsonWriter& writer, std::string_view request_json,
                            const std::vector<RawJson>& acp_entries) {
    Document request;
    request.Parse(request_json.data(), request_json.size());
    auto& allocator = request.GetAllocator();
    auto servers = request.FindMember("mcpServers");
    if (servers == request.MemberEnd()) {
        request.AddMember("mcpServers", JsonValue(rapidjson::kArrayType), allocator);
        servers = request.FindMember("mcpServers");
    }
    for (const auto& entry : acp_entries) {
        Document parsed(&allocator);
        parsed.Parse(entry.text.data(), entry.text.size());
        servers->value.PushBack(JsonValue(parsed, allocator), allocator);
    }
    request.Accept(writer);
}

Status lower_prompt(const std::vector<v2::ContentBlock>& in, std::vector<v1::ContentBlock>& out) {
    out.clear();
    for (const auto& block : in) {
        v1::ContentBlock lowered;
        if (Status s = lower_as_json(block, lowered); !s) return s;
        out.push_back(std::move(lowered));
    }
    return Status();
}

Status lift_permission(const JsonValue& params, v2::RequestPermissionRequest& out) {
    v1::RequestPermissionRequest request;
    if (Status s = v1codec::decode(params, request); !s) return s;
    out = v2::RequestPermissionRequest();
    out.sessionId = request.sessionId;
    Document tool_call = dom_of_v1(request.toolCall);
    drop_nulls(tool_call);
    lift_tool_content(tool_call, tool_call.GetAllocator());
    v2::ToolCallPermissionSubject subject;
    if (Status s = v2codec::decode(tool_call, subject.toolCall); !s) return s;
    // v2 requires a title; v1 has only the tool call's.
    out.title = request.toolCall.title.has_value() ? *request.toolCall.title : std::string("Permission requested");
    out.subject = v2::RequestPermissionSubject::make_tool_call(std::move(subject));
    for (const auto& option : request.options) {
        v2::PermissionOption lifted;
        if (Status s = lift_as_json(option, lifted); !s) return s;
        out.options.push_back(std::move(lifted));
    }
    return Status();
}

// --- V1Lifter -------------------------------------------------------------------------

std::string V1Lifter::next_message_id(Session& session) {
    // Per session, in order of appearance: a replay of the same history yields the same ids.
    return "v1-m" + std::to_string(++session.next_message);
}

std::optional<std::vector<v2::SessionConfigOption>> V1Lifter::options_of(const Session& session) const {
    if (!session.mode && !session.agent_options) return std::nullopt;
    std::vector<v2::SessionConfigOption> options;
    // An agent that offers its modes as a config option too (category mode) gets no
    // second mode selector from its v1 modes.
    const bool agent_has_mode =
        session.agent_options &&
        std::any_of(session.agent_options->begin(), session.agent_options->end(), [](const v2::SessionConfigOption& o) {
            return o.category.has_value() && o.category->value == v2::SessionConfigOptionCategory::mode;
        });
    if (session.mode && !agent_has_mode) options.push_back(*session.mode);
    if (session.agent_options)
        options.insert(options.end(), session.agent_options->begin(), session.agent_options->end());
    return options;
}

bool V1Lifter::has_mode_option(const std::string& session_id) const {
    auto it = sessions_.find(session_id);
    return it != sessions_.end() && it->second.mode.has_value();
}

V1Lifter::IdState V1Lifter::restart(const std::string& session_id) {
    Session& session = sessions_[session_id];
    IdState before{session.next_message, std::move(session.last_chunk_kind), std::move(session.current_message)};
    session.next_message = 0;
    session.last_chunk_kind.clear();
    session.current_message.clear();
    return before;
}

void V1Lifter::restore(const std::string& session_id, IdState ids) {
    Session& session = sessions_[session_id];
    session.next_message = ids.next_message;
    session.last_chunk_kind = std::move(ids.last_chunk_kind);
    session.current_message = std::move(ids.current_message);
}

v2::SessionUpdate V1Lifter::user_message(const std::string& session_id, const std::vector<v2::ContentBlock>& prompt) {
    Session& session = sessions_[session_id];
    v2::UserMessage message;
    message.messageId = next_message_id(session);
    message.content = prompt;
    // An agent that echoes the prompt anyway starts a message of its own.
    session.last_chunk_kind.clear();
    return v2::SessionUpdate::make_user_message(std::move(message));
}

std::optional<std::vector<v2::SessionConfigOption>> V1Lifter::set_lists(const std::string& session_id,
                                                                        const JsonValue& result) {
    Session& session = sessions_[session_id];
    const JsonValue* modes = find_member(result, "modes");
    if (modes != nullptr && modes->IsObject()) {
        v1::SessionModeState state;
        if (v1codec::decode(*modes, state)) session.mode = mode_option(state);
    }
    const JsonValue* options = find_member(result, "configOptions");
    if (options != nullptr && options->IsArray()) {
        std::vector<v2::SessionConfigOption> lifted;
        for (const auto& option : options->GetArray()) {
            v2::SessionConfigOption one;
            if (lift_option(option, one)) lifted.push_back(std::move(one));
        }
        session.agent_options = std::move(lifted);
    }
    return options_of(session);
}

std::optional<std::vector<v2::SessionConfigOption>> V1Lifter::set_mode(const std::string& session_id,
                                                                       const std::string& mode_id) {
    Session& session = sessions_[session_id];
    if (session.mode) {
        if (auto* select = session.mode->type.select()) select->currentValue = mode_id;
    }
    return options_of(session);
}

bool V1Lifter::is_v1_update_kind(std::string_view kind) {
    // The variants of SessionUpdate in the pinned v1 schema.
    static constexpr std::string_view kinds[] = {"user_message_chunk",
                                                 "agent_message_chunk",
                                                 "agent_thought_chunk",
                                                 "tool_call",
                                                 "tool_call_update",
                                                 "plan",
                                                 "available_commands_update",
                                                 "current_mode_update",
                                                 "config_option_update",
                                                 "session_info_update",
                                                 "usage_update",
                                                 "notice",
                                                 "compaction_update",
                                                 "compaction_summary_chunk"};
    for (std::string_view known : kinds) {
        if (known == kind) return true;
    }
    return false;
}

Status V1Lifter::lift_update(const JsonValue& params, std::vector<v2::UpdateSessionNotification>& out) {
    const JsonValue* session_id = find_member(params, "sessionId");
    const JsonValue* update = find_member(params, "update");
    if (session_id == nullptr || !session_id->IsString() || update == nullptr || !update->IsObject()) {
        return Status(Errc::protocol_error, "session/update without sessionId or update");
    }
    const std::string id(string_view_of(*session_id));
    Document lifted;
    lifted.CopyFrom(*update, lifted.GetAllocator());
    return lift_one(id, sessions_[id], lifted, out);
}

Status V1Lifter::lift_one(const std::string& session_id, Session& session, Document& update,
                          std::vector<v2::UpdateSessionNotification>& out) {
    auto& allocator = update.GetAllocator();
    const JsonValue* tag = find_member(update, "sessionUpdate");
    const std::string kind = tag != nullptr && tag->IsString() ? std::string(string_view_of(*tag)) : std::string();
    const bool chunk = kind == "user_message_chunk" || kind == "agent_message_chunk" || kind == "agent_thought_chunk";
    bool emit = true;
    if (chunk) {
        // A new message starts when the id changes or, without ids, when the previous
        // update was not a chunk of the same kind (CLIENT-GUIDE §10).
        const JsonValue* message_id = find_member(update, "messageId");
        if (message_id != nullptr && message_id->IsString() && message_id->GetStringLength() > 0) {
            session.current_message = std::string(string_view_of(*message_id));
        } else if (session.last_chunk_kind != kind || session.current_message.empty()) {
            session.current_message = next_message_id(session);
        }
        session.last_chunk_kind = kind;
        set_string(update, "messageId", session.current_message, allocator);
    } else {
        session.last_chunk_kind.clear();
    }
    if (kind == "tool_call") {
        set_string(update, "sessionUpdate", "tool_call_update", allocator);
        drop_nulls(update);
        lift_tool_content(update, allocator);
    } else if (kind == "tool_call_update") {
        drop_nulls(update);
        lift_tool_content(update, allocator);
    } else if (kind == "plan") {
        // v1 has one plan per session, always complete: the v2 plan "main".
        JsonValue plan(rapidjson::kObjectType);
        plan.AddMember("type", "items", allocator);
        plan.AddMember("planId", rapidjson::StringRef(kV1PlanId), allocator);
        auto entries = update.FindMember("entries");
        JsonValue list(rapidjson::kArrayType);
        if (entries != update.MemberEnd()) list.Swap(entries->value);
        plan.AddMember("entries", list, allocator);
        update.RemoveMember("entries");
        set_string(update, "sessionUpdate", "plan_update", allocator);
        update.AddMember("plan", plan, allocator);
    } else if (kind == "available_commands_update") {
        auto commands = update.FindMember("availableCommands");
        if (commands != update.MemberEnd() && commands->value.IsArray()) {
            for (auto& command : commands->value.GetArray()) {
                if (!command.IsObject()) continue;
                set_string(command, "type", "command", allocator);
                auto input = command.FindMember("input");
                if (input == command.MemberEnd()) continue;
                if (input->value.IsNull()) {
                    command.EraseMember(input);
                } else if (input->value.IsObject() && find_member(input->value, "type") == nullptr) {
                    input->value.AddMember("type", "text", allocator);
                }
            }
        }
    } else if (kind == "current_mode_update" || kind == "config_option_update") {
        if (kind == "current_mode_update") {
            const JsonValue* mode = find_member(update, "currentModeId");
            if (mode != nullptr && mode->IsString() && session.mode) {
                if (auto* select = session.mode->type.select())
                    select->currentValue = std::string(string_view_of(*mode));
            }
        } else {
            set_lists(session_id, update);
        }
        auto options = options_of(session);
        if (!options) return Status();  // a mode change for a session that never had modes
        v2::ConfigOptionUpdate config;
        config.configOptions = std::move(*options);
        v2::UpdateSessionNotification notification;
        notification.sessionId = session_id;
        notification.update = v2::SessionUpdate::make_config_option_update(std::move(config));
        out.push_back(std::move(notification));
        emit = false;
    }
    if (!emit) return Status();
    v2::UpdateSessionNotification notification;
    notification.sessionId = session_id;
    if (!is_v1_update_kind(kind)) {
        // Not v1's: kept verbatim, never read with the meaning v2 gives a kind of that
        // name (a v1 agent's own "state_update" is no v2 turn state).
        notification.update = v2::SessionUpdate::make_unknown(kind, RawJson{to_json_text(update)});
        out.push_back(std::move(notification));
        return Status();
    }
    if (Status s = v2codec::decode(update, notification.update); !s) return s;
    out.push_back(std::move(notification));
    return Status();
}

}  // namespace acp::detail
