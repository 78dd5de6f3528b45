/* SPDX-License-Identifier: Apache-2.0 */
/* What a foreign-function host (LuaJIT, Python cffi) needs, from plain C against the
 * TypeScript-SDK peer: options from acp_*_options_init, results that name their session,
 * permission options read through accessors, a streamed reply followed through the text
 * each change event appended (no snapshot, no JSON parsing), and single items read by
 * index or id with a tool call's fields. Exits 0 on success. */
#include <acp/acp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAX_ITEMS 32

/* The host's own copy of each item's text, kept up to date from change events alone. */
struct follower {
    char *text[MAX_ITEMS];
    size_t size[MAX_ITEMS];
    int appends; /* changes that carried appended text */
    int rereads; /* changes that did not: the item was read again */
    int turn_ended;
    char stop_reason[32];
    char state[32];
};

static acp_client *client;
static char session_id[64];

static acp_event *next_event(void) {
    acp_event *event = NULL;
    while (acp_client_next_event(&event, client) != 0) REQUIRE(acp_client_run_once(client, -1) >= 0);
    return event;
}

static void set_text(struct follower *f, int index, const char *text, size_t size) {
    f->text[index] = (char *)realloc(f->text[index], size + 1);
    memcpy(f->text[index], text, size);
    f->text[index][size] = '\0';
    f->size[index] = size;
}

static void follow(struct follower *f, const acp_event *event) {
    int index = acp_event_item_index(event);
    int change = acp_event_change(event);
    size_t size = 0;
    const char *appended;
    if (change == ACP_CHANGE_TURN_ENDED || change == ACP_CHANGE_STATE) {
        CHECK(acp_event_state(event) != NULL);
        if (acp_event_state(event) != NULL) strncpy(f->state, acp_event_state(event), sizeof f->state - 1);
        if (change == ACP_CHANGE_TURN_ENDED) {
            ++f->turn_ended;
            REQUIRE(acp_event_stop_reason(event) != NULL);
            strncpy(f->stop_reason, acp_event_stop_reason(event), sizeof f->stop_reason - 1);
        }
        return;
    }
    if (change != ACP_CHANGE_ITEM_INSERTED && change != ACP_CHANGE_ITEM_CHANGED) return;
    REQUIRE(index >= 0 && index < MAX_ITEMS);
    appended = acp_event_appended_text(event, &size);
    if (appended != NULL) {
        /* O(chunk): append what the event carries. */
        if (change == ACP_CHANGE_ITEM_INSERTED) set_text(f, index, "", 0);
        f->text[index] = (char *)realloc(f->text[index], f->size[index] + size + 1);
        memcpy(f->text[index] + f->size[index], appended, size);
        f->size[index] += size;
        f->text[index][f->size[index]] = '\0';
        ++f->appends;
    } else {
        /* Not a plain append (an upsert may have replaced it): read that one item again. */
        acp_item *item = NULL;
        const char *text;
        REQUIRE(acp_client_item(&item, client, session_id, index) == 0);
        CHECK(acp_item_index(item) == index);
        text = acp_item_text(item, &size);
        set_text(f, index, text != NULL ? text : "", text != NULL ? size : 0);
        acp_item_free(item);
        ++f->rereads;
    }
}

/* Runs until the result of request; change events go to the follower. */
static acp_event *wait_result(unsigned long request, struct follower *f, acp_event **permission) {
    for (;;) {
        acp_event *event = next_event();
        if (acp_event_type(event) == ACP_EVENT_RESULT && acp_event_request(event) == request) return event;
        if (acp_event_type(event) == ACP_EVENT_SESSION_CHANGED && f != NULL) follow(f, event);
        if (acp_event_type(event) == ACP_EVENT_PERMISSION_REQUEST && permission != NULL) {
            *permission = event;
            continue;
        }
        acp_event_free(event);
    }
}

static void wait_turn(struct follower *f, int turns) {
    while (f->turn_ended < turns) {
        acp_event *event = next_event();
        if (acp_event_type(event) == ACP_EVENT_SESSION_CHANGED) follow(f, event);
        acp_event_free(event);
    }
}

static void check_options_init(void) {
    acp_client_options options, expected = ACP_CLIENT_OPTIONS_INIT;
    acp_spawn_options spawn, spawn_expected = ACP_SPAWN_OPTIONS_INIT;
    memset(&options, 0x5a, sizeof options);
    CHECK(acp_client_options_init(&options, ACP_CLIENT_OPTIONS_VERSION) == 0);
    CHECK(options.version == expected.version && options.mode == expected.mode && options.uv_loop == NULL);
    CHECK(options.client_name == NULL && options.client_version == NULL);
    CHECK(options.request_timeout_ms == expected.request_timeout_ms &&
          options.max_line_bytes == expected.max_line_bytes);
    CHECK(options.queue_events == 1 && options.log_level == ACP_LOG_INFO);
    CHECK(options.protocol_version == ACP_PROTOCOL_AUTO);
    /* A version-1 struct ends before protocol_version: nothing past it is written. */
    memset(&options, 0x5a, sizeof options);
    options.protocol_version = -7;
    CHECK(acp_client_options_init(&options, 1) == 0);
    CHECK(options.version == 1 && options.queue_events == 1 && options.protocol_version == -7);
    CHECK(acp_client_options_init(&options, 99) == ACP_EINVAL);
    CHECK(acp_client_options_init(NULL, ACP_CLIENT_OPTIONS_VERSION) == ACP_EINVAL);
    memset(&spawn, 0x5a, sizeof spawn);
    CHECK(acp_spawn_options_init(&spawn, ACP_SPAWN_OPTIONS_VERSION) == 0);
    CHECK(spawn.version == spawn_expected.version && spawn.argv == NULL && spawn.cwd == NULL);
    CHECK(spawn.env_set == NULL && spawn.env_unset == NULL && spawn.shutdown_grace_ms == 0 &&
          spawn.terminate_grace_ms == 0);
    CHECK(acp_spawn_options_init(&spawn, 0) == ACP_EINVAL);
    {
        /* Remote agents: the defaults, then what is refused before any connection. */
        acp_remote_options remote;
        acp_client *client = (acp_client *)&remote;
        const char *no_colon[] = {"Authorization Bearer x", NULL};
        memset(&remote, 0x5a, sizeof remote);
        CHECK(acp_remote_options_init(&remote, ACP_REMOTE_OPTIONS_VERSION) == 0);
        CHECK(remote.url == NULL && remote.headers == NULL && remote.ca_file == NULL && remote.connect_timeout_ms == 0);
        CHECK(acp_remote_options_init(&remote, 0) == ACP_EINVAL);
        CHECK(acp_client_connect(&client, &remote, NULL) == ACP_EINVAL); /* no url */
        CHECK(client == NULL);
        remote.url = "ftp://127.0.0.1/acp";
        CHECK(acp_client_connect(&client, &remote, NULL) == ACP_EUNSUPPORTED);
        remote.url = "ws://127.0.0.1:9/acp";
        remote.headers = no_colon;
        CHECK(acp_client_connect(&client, &remote, NULL) == ACP_EINVAL);
        CHECK(strstr(acp_error_last(), "Bearer") == NULL); /* a header's value is never echoed */
    }
}

/* The permission request names its options and its tool call through accessors. */
static void answer_permission(acp_event *permission) {
    acp_responder *responder = NULL;
    acp_item *tool_call = NULL;
    int i, allow = -1;
    REQUIRE(permission != NULL);
    CHECK(strcmp(acp_event_session_id(permission), session_id) == 0);
    CHECK(acp_event_option_count(permission) >= 2);
    for (i = 0; i < acp_event_option_count(permission); ++i) {
        CHECK(acp_event_option_id(permission, i) != NULL && acp_event_option_name(permission, i) != NULL);
        if (strcmp(acp_event_option_kind(permission, i), "allow_once") == 0) allow = i;
    }
    CHECK(acp_event_option_id(permission, acp_event_option_count(permission)) == NULL);
    CHECK(acp_event_option_kind(permission, -1) == NULL);
    REQUIRE(allow >= 0);
    CHECK(acp_event_item_kind(permission) == ACP_ITEM_TOOL_CALL);
    REQUIRE(acp_event_item_id(permission) != NULL && acp_event_item_index(permission) >= 0);
    REQUIRE(acp_client_item(&tool_call, client, session_id, acp_event_item_index(permission)) == 0);
    CHECK(strcmp(acp_item_id(tool_call), acp_event_item_id(permission)) == 0);
    CHECK(acp_item_kind(tool_call) == ACP_ITEM_TOOL_CALL);
    CHECK(acp_item_title(tool_call) != NULL);
    acp_item_free(tool_call);
    REQUIRE(acp_event_take_responder(&responder, permission) == 0);
    CHECK(acp_responder_select(responder, acp_event_option_id(permission, allow)) == 0);
    acp_responder_free(responder);
    acp_event_free(permission);
}

static void check_tool_call(void) {
    acp_item *item = NULL;
    CHECK(acp_client_find_item(&item, client, session_id, ACP_ITEM_TOOL_CALL, "no-such-call") == ACP_ENOTFOUND);
    CHECK(acp_client_find_item(&item, client, session_id, ACP_ITEM_UNKNOWN, "tc1") == ACP_EINVAL);
    REQUIRE(acp_client_find_item(&item, client, session_id, ACP_ITEM_TOOL_CALL, "tc2") == 0);
    CHECK(strcmp(acp_item_id(item), "tc2") == 0);
    CHECK(strcmp(acp_item_title(item), "Edit hello.txt") == 0);
    CHECK(strcmp(acp_item_status(item), "completed") == 0);
    CHECK(strcmp(acp_item_tool_kind(item), "edit") == 0);
    CHECK(acp_item_text(item, NULL) == NULL);
    CHECK(acp_item_content_count(item) == 2); /* the diff, then the terminal the chunk appended */
    CHECK(strstr(acp_item_content_json(item, 0), "\"type\":\"diff\"") != NULL);
    CHECK(strstr(acp_item_content_json(item, 1), "\"terminalId\"") != NULL);
    CHECK(acp_item_content_json(item, 2) == NULL);
    CHECK(strstr(acp_item_field_json(item, "rawInput"), "\"replace\":\"Hello!\"") != NULL);
    CHECK(strcmp(acp_item_field_json(item, "rawOutput"), "{\"ok\":true}") == 0);
    CHECK(strstr(acp_item_field_json(item, "locations"), "hello.txt") != NULL);
    CHECK(acp_item_field_json(item, "noSuchMember") == NULL);
    CHECK(strstr(acp_item_json(item), "\"kind\":\"tool_call\"") != NULL);
    acp_item_free(item);
}

int main(void) {
    const char *argv[3];
    acp_spawn_options agent;
    acp_client_options options;
    acp_event *result, *permission = NULL;
    acp_session *snapshot = NULL;
    acp_item *item = NULL;
    struct follower f;
    unsigned long id = 0;
    int i, count;
    size_t size;

    check_options_init();
    memset(&f, 0, sizeof f);
    REQUIRE(acp_spawn_options_init(&agent, ACP_SPAWN_OPTIONS_VERSION) == 0);
    REQUIRE(acp_client_options_init(&options, ACP_CLIENT_OPTIONS_VERSION) == 0);
    argv[0] = ACP_NODE;
    argv[1] = ACP_TS_AGENT_DIR "/agent.mjs";
    argv[2] = NULL;
    agent.argv = argv;
    REQUIRE(acp_client_spawn(&client, &agent, &options) == 0);
    REQUIRE(acp_client_observe_sessions(client, 1) == 0);
    REQUIRE(acp_client_initialize(&id, client, NULL, NULL) == 0);
    acp_event_free(wait_result(id, NULL, NULL));

    /* The new session's id comes with its result: no JSON to parse. */
    REQUIRE(acp_client_new_session(&id, client, "{\"cwd\":\"/tmp\",\"mcpServers\":[]}", NULL, NULL) == 0);
    result = wait_result(id, &f, NULL);
    CHECK(acp_event_status(result)->code == ACP_OK);
    REQUIRE(acp_event_session_id(result) != NULL);
    strncpy(session_id, acp_event_session_id(result), sizeof session_id - 1);
    CHECK(strstr(acp_event_json(result), session_id) != NULL);
    acp_event_free(result);

    /* A permission turn: options by accessor, the answer by option id. */
    REQUIRE(acp_client_prompt_text(&id, client, session_id, "permission", NULL, NULL) == 0);
    result = wait_result(id, &f, &permission);
    CHECK(strcmp(acp_event_session_id(result), session_id) == 0); /* a prompt's result names its session */
    acp_event_free(result);
    while (permission == NULL) {
        acp_event *event = next_event();
        if (acp_event_type(event) == ACP_EVENT_PERMISSION_REQUEST) {
            permission = event;
        } else {
            if (acp_event_type(event) == ACP_EVENT_SESSION_CHANGED) follow(&f, event);
            acp_event_free(event);
        }
    }
    answer_permission(permission);
    wait_turn(&f, 1);
    CHECK(strcmp(f.stop_reason, "end_turn") == 0);
    CHECK(strcmp(f.state, "idle") == 0);

    /* The "tool" turn: chunks, an upsert that replaces a message, a terminal whose output
     * splits a UTF-8 character across chunks. */
    REQUIRE(acp_client_prompt_text(&id, client, session_id, "tool", NULL, NULL) == 0);
    wait_turn(&f, 2);
    CHECK(f.appends > 0);
    CHECK(f.rereads > 0);

    /* Every item's text as followed equals the model's. */
    count = acp_client_item_count(client, session_id);
    REQUIRE(count > 0 && count <= MAX_ITEMS);
    REQUIRE(acp_client_session(&snapshot, client, session_id) == 0);
    CHECK(acp_session_item_count(snapshot) == count);
    for (i = 0; i < count; ++i) {
        const char *text;
        REQUIRE(acp_client_item(&item, client, session_id, i) == 0);
        text = acp_item_text(item, &size);
        CHECK(acp_item_kind(item) == acp_session_item_kind(snapshot, i));
        CHECK(strcmp(acp_item_id(item), acp_session_item_id(snapshot, i)) == 0);
        CHECK(strcmp(acp_item_json(item), acp_session_item_json(snapshot, i)) == 0);
        if (text != NULL) {
            CHECK(f.text[i] != NULL && f.size[i] == size && memcmp(f.text[i], text, size) == 0);
            if (f.text[i] == NULL || f.size[i] != size || memcmp(f.text[i], text, size) != 0) {
                fprintf(stderr, "item %d: followed '%s', model '%s'\n", i, f.text[i] ? f.text[i] : "(none)", text);
            }
            if (acp_item_kind(item) == ACP_ITEM_TERMINAL)
                CHECK(strcmp(text, "$ make check\r\nbuild: \xE2\x9C\x93 ok\r\n") == 0);
        }
        acp_item_free(item);
    }
    acp_session_free(snapshot);
    check_tool_call();
    CHECK(acp_client_item(&item, client, session_id, count) == ACP_ENOTFOUND && item == NULL);
    CHECK(acp_client_item(&item, client, "no-such-session", 0) == ACP_ENOTFOUND);
    CHECK(acp_client_item_count(client, "no-such-session") == ACP_ENOTFOUND);

    REQUIRE(acp_client_close_session(&id, client, session_id, NULL, NULL) == 0);
    result = wait_result(id, &f, NULL);
    CHECK(strcmp(acp_event_session_id(result), session_id) == 0);
    acp_event_free(result);
    acp_client_free(client);
    for (i = 0; i < MAX_ITEMS; ++i) free(f.text[i]);
    if (failures == 0) printf("capi ffi host test: ok\n");
    return failures == 0 ? 0 : 1;
}
