// SPDX-License-Identifier: Apache-2.0
// The canonical JSON dump of a session (format: docs/session-model.md). Every member is
// always written, in a fixed order, so two equal models give byte-identical dumps.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "acp/session.hpp"
#include "jsonrpc/json.hpp"
#include "protocol/codec_support.hpp"
#include "protocol/v2/unstable_codec.hpp"

namespace acp {

namespace {

using detail::JsonWriter;
using detail::write_key;
using detail::write_string;

void write_optional_string(JsonWriter& w, std::string_view key, const std::optional<std::string>& value) {
    write_key(w, key);
    if (value) {
        write_string(w, *value);
    } else {
        w.Null();
    }
}

template <class T>
void write_optional(JsonWriter& w, std::string_view key, const std::optional<T>& value) {
    write_key(w, key);
    if (value) {
        v2::unstable::codec::encode(w, *value);
    } else {
        w.Null();
    }
}

void write_optional_raw(JsonWriter& w, std::string_view key, const std::optional<RawJson>& value) {
    write_key(w, key);
    if (value) {
        detail::write_raw(w, *value);
    } else {
        w.Null();
    }
}

template <class T>
void write_array(JsonWriter& w, std::string_view key, const std::vector<T>& values) {
    write_key(w, key);
    w.StartArray();
    for (const auto& value : values) v2::unstable::codec::encode(w, value);
    w.EndArray();
}

template <class T>
void write_optional_array(JsonWriter& w, std::string_view key, const std::optional<std::vector<T>>& values) {
    if (values) {
        write_array(w, key, *values);
    } else {
        write_key(w, key);
        w.Null();
    }
}

void write_meta(JsonWriter& w, const MetaMap& meta) {
    write_key(w, "_meta");
    w.StartObject();
    for (const auto& [key, value] : meta) {
        write_key(w, key);
        detail::write_raw(w, value);
    }
    w.EndObject();
}

void write_item(JsonWriter& w, const SessionItem& item) {
    w.StartObject();
    write_key(w, "kind");
    write_string(w, item_kind_name(item.kind()));
    if (const UnknownItem* unknown = item.unknown()) {
        write_key(w, "sessionUpdate");
        write_string(w, unknown->tag);
        write_key(w, "update");
        detail::write_raw(w, unknown->raw);
        w.EndObject();
        return;
    }
    write_key(w, "id");
    write_string(w, item.id());
    if (const MessageItem* message = item.message()) {
        write_array(w, "content", message->content);
        write_meta(w, message->meta);
    } else if (const ToolCallItem* call = item.tool_call()) {
        write_optional_string(w, "name", call->name);
        write_optional_string(w, "title", call->title);
        write_key(w, "toolKind");
        v2::unstable::codec::encode(w, call->kind);
        write_key(w, "status");
        v2::unstable::codec::encode(w, call->status);
        write_array(w, "content", call->content);
        write_array(w, "locations", call->locations);
        write_optional_raw(w, "rawInput", call->raw_input);
        write_optional_raw(w, "rawOutput", call->raw_output);
        write_optional(w, "capabilities", call->capabilities);
        write_meta(w, call->meta);
    } else if (const PlanItem* plan = item.plan()) {
        write_key(w, "plan");
        v2::unstable::codec::encode(w, plan->plan);
        write_key(w, "removed");
        w.Bool(plan->removed);
    } else if (const TerminalItem* terminal = item.terminal()) {
        write_optional_string(w, "command", terminal->command);
        write_optional_string(w, "cwd", terminal->cwd);
        write_key(w, "output");
        write_string(w, terminal->text);
        write_key(w, "outputBytes");
        w.Uint64(terminal->bytes.size());
        write_optional(w, "exitStatus", terminal->exit_status);
        write_optional(w, "size", terminal->size);
        write_optional(w, "capabilities", terminal->capabilities);
        write_meta(w, terminal->meta);
    } else if (const CompactionItem* compaction = item.compaction()) {
        write_key(w, "status");
        v2::unstable::codec::encode(w, compaction->status);
        write_array(w, "summary", compaction->summary);
        write_optional_string(w, "error", compaction->error);
        write_meta(w, compaction->meta);
    } else if (const SubagentItem* child = item.subagent()) {
        write_optional_string(w, "title", child->title);
        write_optional_string(w, "description", child->description);
        write_optional(w, "capabilities", child->capabilities);
        write_optional(w, "state", child->state);
        write_optional_string(w, "cwd", child->cwd);
        write_key(w, "additionalDirectories");
        if (child->additional_directories) {
            w.StartArray();
            for (const auto& directory : *child->additional_directories) write_string(w, directory);
            w.EndArray();
        } else {
            w.Null();
        }
        write_meta(w, child->meta);
    } else if (const SessionMessageItem* between = item.session_message()) {
        write_optional_string(w, "senderSessionId", between->sender_session_id);
        write_optional_string(w, "recipientSessionId", between->recipient_session_id);
        write_optional_string(w, "senderMessageId", between->sender_message_id);
        write_optional_string(w, "recipientMessageId", between->recipient_message_id);
        write_array(w, "content", between->content);
        write_meta(w, between->meta);
    }
    w.EndObject();
}

void write_foreground(JsonWriter& w, const ForegroundState& foreground) {
    write_key(w, "foreground");
    w.StartObject();
    write_key(w, "state");
    write_string(w, foreground.state);
    write_optional_string(w, "stopReason", foreground.stop_reason);
    write_optional(w, "error", foreground.error);
    write_optional_raw(w, "raw", foreground.raw);
    write_optional_array(w, "background", foreground.background);
    write_optional(w, "usage", foreground.usage);
    w.EndObject();
}

void write_info(JsonWriter& w, const SessionInfoState& info) {
    write_key(w, "info");
    w.StartObject();
    write_optional_string(w, "title", info.title);
    write_optional_string(w, "updatedAt", info.updated_at);
    write_optional_string(w, "cwd", info.cwd);
    write_key(w, "additionalDirectories");
    if (info.additional_directories) {
        w.StartArray();
        for (const auto& directory : *info.additional_directories) write_string(w, directory);
        w.EndArray();
    } else {
        w.Null();
    }
    write_meta(w, info.meta);
    w.EndObject();
}

void write_usage(JsonWriter& w, const std::optional<UsageState>& usage) {
    write_key(w, "usage");
    if (!usage) {
        w.Null();
        return;
    }
    w.StartObject();
    write_key(w, "used");
    w.Uint64(usage->used);
    write_key(w, "size");
    w.Uint64(usage->size);
    write_optional(w, "cost", usage->cost);
    w.EndObject();
}

}  // namespace

std::string to_json(const SessionItem& item) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    write_item(writer, item);
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string to_json(const SessionState& session) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    write_key(w, "sessionId");
    write_string(w, session.session_id());
    write_foreground(w, session.foreground());
    write_key(w, "items");
    w.StartArray();
    for (const auto& item : session.items()) write_item(w, item);
    w.EndArray();
    write_optional_array(w, "configOptions", session.config_options());
    write_optional_array(w, "availableCommands", session.available_commands());
    write_info(w, session.info());
    write_usage(w, session.usage());
    write_array(w, "notices", session.notices());
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace acp
