// SPDX-License-Identifier: Apache-2.0
// The session model through the C API: a snapshot of a whole session (acp_session), one
// item read by index or id without a snapshot (acp_item), and their accessors.
#include <cstring>

#include "capi/barrier.hpp"
#include "capi/json_text.hpp"
#include "capi/session_copy.hpp"

using namespace acp;
using namespace acp::capi;

namespace {

const ItemBasics* item_at(const acp_session* s, int index) {
    if (s == nullptr || index < 0 || static_cast<std::size_t>(index) >= s->items.size()) {
        fail(ACP_ENOTFOUND, "no item at this index");
        return nullptr;
    }
    return &s->items[static_cast<std::size_t>(index)];
}

// Runs read on the loop thread with the session's state; ACP_ENOTFOUND without one.
int with_session(acp_client* client, const char* session_id, const std::function<void(const SessionState&)>& read) {
    auto core = core_of(client);
    if (!core) return ACP_EINVAL;
    if (int ok = need(session_id, "session_id"); ok != ACP_OK) return ok;
    const std::string id = session_id;
    bool found = false;
    int ran = core->run_sync([&] {
        if (!core->client) return;
        if (const SessionState* state = core->client->sessions().find(id)) {
            found = true;
            read(*state);
        }
    });
    if (ran != ACP_OK) return ran;
    return found ? ACP_OK : fail(ACP_ENOTFOUND, "no session '" + id + "' in the model");
}

}  // namespace

extern "C" {

// --- snapshots -----------------------------------------------------------------------------

int acp_client_session(acp_session** out, acp_client* client, const char* session_id) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr) return fail(ACP_EINVAL, "out is NULL");
        *out = nullptr;
        return with_session(client, session_id, [&](const SessionState& state) { *out = copy_session(state); });
    });
}

int acp_client_session_ids(char** out, acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr || client == nullptr) return fail(ACP_EINVAL, "out or client is NULL");
        *out = nullptr;
        auto core = client->core;
        rapidjson::StringBuffer buffer;
        detail::JsonWriter writer(buffer);
        int ran = core->run_sync([&] {
            writer.StartArray();
            if (core->client) {
                for (const auto& id : core->session_ids) {
                    if (core->client->sessions().find(id) != nullptr) detail::write_string(writer, id);
                }
            }
            writer.EndArray();
        });
        if (ran != ACP_OK) return ran;
        *out = copy_string(std::string(buffer.GetString(), buffer.GetSize()));
        return ACP_OK;
    });
}

void acp_session_free(acp_session* session) { delete session; }

const char* acp_session_id(const acp_session* s) { return s != nullptr ? s->id.c_str() : nullptr; }
const char* acp_session_json(const acp_session* s) { return s != nullptr ? s->json.c_str() : nullptr; }
const char* acp_session_state(const acp_session* s) { return s != nullptr ? s->state.c_str() : nullptr; }
const char* acp_session_stop_reason(const acp_session* s) {
    return s != nullptr ? c_str_or_null(s->stop_reason) : nullptr;
}
const char* acp_session_title(const acp_session* s) { return s != nullptr ? c_str_or_null(s->title) : nullptr; }
int acp_session_usage(const acp_session* s, double* used, double* size) {
    if (s == nullptr || !s->has_usage) return fail(ACP_ENOTFOUND, "no usage reported");
    if (used != nullptr) *used = s->used;
    if (size != nullptr) *size = s->size;
    return ACP_OK;
}
const char* acp_session_config_options_json(const acp_session* s) {
    return s != nullptr ? c_str_or_null(s->config_options) : nullptr;
}
const char* acp_session_commands_json(const acp_session* s) {
    return s != nullptr ? c_str_or_null(s->commands) : nullptr;
}

int acp_session_item_count(const acp_session* s) { return s != nullptr ? static_cast<int>(s->items.size()) : 0; }
int acp_session_item_kind(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? item->kind : ACP_ENOTFOUND;
}
const char* acp_session_item_id(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? item->id.c_str() : nullptr;
}
const char* acp_session_item_text(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? c_str_or_null(item->text) : nullptr;
}
const char* acp_session_item_title(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? c_str_or_null(item->title) : nullptr;
}
const char* acp_session_item_status(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? c_str_or_null(item->status) : nullptr;
}
const char* acp_session_item_json(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? item->json.c_str() : nullptr;
}

// --- one item, without a snapshot ------------------------------------------------------------

int acp_client_item_count(acp_client* client, const char* session_id) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        int count = 0;
        int found = with_session(client, session_id,
                                 [&](const SessionState& state) { count = static_cast<int>(state.items().size()); });
        return found == ACP_OK ? count : found;
    });
}

int acp_client_item(acp_item** out, acp_client* client, const char* session_id, int index) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr) return fail(ACP_EINVAL, "out is NULL");
        *out = nullptr;
        int found = with_session(client, session_id, [&](const SessionState& state) {
            if (index >= 0 && static_cast<std::size_t>(index) < state.items().size()) {
                *out = copy_item(state.items()[static_cast<std::size_t>(index)], static_cast<std::size_t>(index));
            }
        });
        if (found != ACP_OK) return found;
        return *out != nullptr ? ACP_OK : fail(ACP_ENOTFOUND, "no item at index " + std::to_string(index));
    });
}

int acp_client_find_item(acp_item** out, acp_client* client, const char* session_id, int kind, const char* item_id) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr) return fail(ACP_EINVAL, "out is NULL");
        *out = nullptr;
        if (int ok = need(item_id, "item_id"); ok != ACP_OK) return ok;
        if (kind < ACP_ITEM_USER_MESSAGE || kind == ACP_ITEM_UNKNOWN || kind > ACP_ITEM_SESSION_MESSAGE) {
            return fail(ACP_EINVAL, "kind must be an ACP_ITEM_* with an id (not ACP_ITEM_UNKNOWN)");
        }
        const std::string id = item_id;
        int found = with_session(client, session_id, [&](const SessionState& state) {
            if (auto index = state.find(static_cast<ItemKind>(kind), id))
                *out = copy_item(state.items()[*index], *index);
        });
        if (found != ACP_OK) return found;
        return *out != nullptr ? ACP_OK : fail(ACP_ENOTFOUND, "no item '" + id + "' of that kind");
    });
}

void acp_item_free(acp_item* item) { delete item; }

int acp_item_index(const acp_item* item) { return item != nullptr ? item->index : ACP_EINVAL; }
int acp_item_kind(const acp_item* item) { return item != nullptr ? item->kind : ACP_EINVAL; }
const char* acp_item_id(const acp_item* item) { return item != nullptr ? item->id.c_str() : nullptr; }
const char* acp_item_text(const acp_item* item, size_t* size) {
    const bool has = item != nullptr && item->text.has_value();
    if (size != nullptr) *size = has ? item->text->size() : 0;
    return has ? item->text->c_str() : nullptr;
}
const char* acp_item_title(const acp_item* item) { return item != nullptr ? c_str_or_null(item->title) : nullptr; }
const char* acp_item_status(const acp_item* item) { return item != nullptr ? c_str_or_null(item->status) : nullptr; }
const char* acp_item_tool_kind(const acp_item* item) {
    return item != nullptr ? c_str_or_null(item->tool_kind) : nullptr;
}
const char* acp_item_json(const acp_item* item) { return item != nullptr ? item->json.c_str() : nullptr; }

int acp_item_content_count(const acp_item* item) {
    return item != nullptr ? static_cast<int>(item->content.size()) : 0;
}
const char* acp_item_content_json(const acp_item* item, int index) {
    if (item == nullptr || index < 0 || static_cast<std::size_t>(index) >= item->content.size()) {
        fail(ACP_ENOTFOUND, "no content block at this index");
        return nullptr;
    }
    return item->content[static_cast<std::size_t>(index)].c_str();
}

const char* acp_item_field_json(const acp_item* item, const char* name) {
    if (item == nullptr || name == nullptr) {
        fail(ACP_EINVAL, "item or name is NULL");
        return nullptr;
    }
    for (const auto& [key, json] : item->fields) {
        if (std::strcmp(key.c_str(), name) == 0) return json.c_str();
    }
    fail(ACP_ENOTFOUND, std::string("the item has no member '") + name + "'");
    return nullptr;
}

}  // extern "C"
