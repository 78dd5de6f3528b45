/* SPDX-License-Identifier: Apache-2.0 */
/* A plain C host drives a whole session against the TypeScript-SDK peer agent
 * (tests/peers/ts-agent) through include/acp/acp.h only. Client A (polled mode, pull
 * queue, one handler): initialize, new session, a prompt with a permission round trip
 * answered later through a responder. Client B (own-thread mode, event fd): a fresh agent
 * on the same state directory, resume with a full replay that must rebuild the same
 * model, a permission answered from the host thread, and a close from inside a result
 * callback. Exits 0 on success; every failed check prints its line. */
#include <acp/acp.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* What the host has seen so far. */
struct host {
    acp_client *client;
    int idle_updates;
    int closed;
    acp_status closed_status;
    acp_responder *pending_permission; /* taken in the handler, answered later */
    int permission_requests;
    int releases;
    char session_id[64];
    int session_result_seen;
    /* ACP_EVENT_SESSION_CHANGED bookkeeping (acp_client_observe_sessions) */
    int changes[13];
    char inserted_ids[64][64]; /* the id each ACP_CHANGE_ITEM_INSERTED named, by index */
    int bad_item_events;
};

/* The permission is answered later, from the host's own loop, not from the handler. */
static void answer_pending(struct host *h) {
    CHECK(acp_responder_select(h->pending_permission, "allow-once") == 0);
    CHECK(acp_responder_answered(h->pending_permission) == 1);
    CHECK(acp_responder_select(h->pending_permission, "reject-once") == ACP_ESTATE);
    acp_responder_free(h->pending_permission);
    h->pending_permission = NULL;
}

/* Waits for the next event in either mode: polled runs the loop, own-thread waits on
 * the event descriptor. */
static acp_event *next_event(struct host *h, int threaded) {
    acp_event *event = NULL;
    while (acp_client_next_event(&event, h->client) != 0) {
        if (h->pending_permission != NULL) answer_pending(h);
        if (threaded) {
            struct pollfd p;
            p.fd = acp_client_event_fd(h->client);
            p.events = POLLIN;
            p.revents = 0;
            /* libuv's SIGCHLD handler may interrupt the wait: EINTR just means again. */
            REQUIRE(poll(&p, 1, -1) >= 0 || errno == EINTR);
        } else {
            REQUIRE(acp_client_run_once(h->client, -1) >= 0);
        }
    }
    return event;
}

/* Bookkeeping shared by every event the test does not wait for itself. */
static void observe(struct host *h, const acp_event *event) {
    if (getenv("ACP_TEST_VERBOSE") != NULL) {
        fprintf(stderr, "event %d: %s %s\n", acp_event_type(event), acp_event_json(event),
                acp_event_text(event) != NULL ? acp_event_text(event) : "");
    }
    if (acp_event_type(event) == ACP_EVENT_SESSION_UPDATE) {
        const char *json = acp_event_json(event);
        CHECK(acp_event_session_id(event) != NULL);
        if (strstr(json, "\"sessionUpdate\":\"state_update\"") != NULL && strstr(json, "\"state\":\"idle\"") != NULL) {
            ++h->idle_updates;
        }
    } else if (acp_event_type(event) == ACP_EVENT_SESSION_CHANGED) {
        const int change = acp_event_change(event);
        const int index = acp_event_item_index(event);
        CHECK(change >= 0 && change <= ACP_CHANGE_REPLAY_ENDED);
        if (change >= 0 && change <= ACP_CHANGE_REPLAY_ENDED) ++h->changes[change];
        if (change == ACP_CHANGE_ITEM_INSERTED || change == ACP_CHANGE_ITEM_CHANGED) {
            if (index < 0 || index >= 64 || acp_event_item_id(event) == NULL || acp_event_item_kind(event) < 0) {
                ++h->bad_item_events;
            } else if (change == ACP_CHANGE_ITEM_INSERTED) {
                strncpy(h->inserted_ids[index], acp_event_item_id(event), 63);
            } else if (strcmp(h->inserted_ids[index], acp_event_item_id(event)) != 0) {
                ++h->bad_item_events; /* a change names the item its insertion named */
            }
        } else if (index != -1 || acp_event_item_id(event) != NULL) {
            ++h->bad_item_events;
        }
    } else if (acp_event_type(event) == ACP_EVENT_CLOSED) {
        h->closed = 1;
        h->closed_status.code = acp_event_status(event)->code;
    } else if (acp_event_type(event) == ACP_EVENT_PERMISSION_REQUEST) {
        /* Client B has no handler: the request waits in the queue; the host takes it. */
        ++h->permission_requests;
        CHECK(acp_event_take_responder(&h->pending_permission, event) == 0);
    }
}

/* Runs until the result of request arrives; returns it (the caller frees it). */
static acp_event *wait_result(struct host *h, unsigned long request, int threaded) {
    for (;;) {
        acp_event *event = next_event(h, threaded);
        if (acp_event_type(event) == ACP_EVENT_RESULT && acp_event_request(event) == request) return event;
        observe(h, event);
        acp_event_free(event);
    }
}

static void wait_idle(struct host *h, int count, int threaded) {
    while (h->idle_updates < count) {
        acp_event *event = next_event(h, threaded);
        observe(h, event);
        acp_event_free(event);
    }
}

static void wait_closed(struct host *h, int threaded) {
    while (!h->closed) {
        acp_event *event = next_event(h, threaded);
        observe(h, event);
        acp_event_free(event);
    }
}

static void on_permission(const acp_event *event, void *userdata) {
    struct host *h = (struct host *)userdata;
    acp_responder *again = NULL;
    ++h->permission_requests;
    CHECK(strstr(acp_event_json(event), "allow-once") != NULL);
    CHECK(strcmp(acp_event_session_id(event), h->session_id) == 0);
    CHECK(acp_event_take_responder(&h->pending_permission, event) == 0);
    CHECK(acp_event_take_responder(&again, event) == ACP_ENOTFOUND && again == NULL); /* only once */
}

static void on_release(void *userdata) { ++((struct host *)userdata)->releases; }

static void on_new_session(const acp_event *result, void *userdata) {
    struct host *h = (struct host *)userdata;
    const char *json = acp_event_json(result);
    const char *id = strstr(json, "\"sessionId\":\"");
    h->session_result_seen = 1;
    CHECK(acp_event_status(result)->code == ACP_OK);
    REQUIRE(id != NULL);
    id += strlen("\"sessionId\":\"");
    memcpy(h->session_id, id, (size_t)(strchr(id, '"') - id));
}

/* Closing from inside a callback (here on libacp's own thread) is legal; CLOSED follows. */
static void on_result_close(const acp_event *result, void *userdata) {
    struct host *h = (struct host *)userdata;
    acp_session *session = NULL;
    h->session_result_seen = 1;
    CHECK(acp_event_status(result)->code == ACP_OK);
    CHECK(acp_client_session(&session, h->client, h->session_id) == 0); /* on the loop thread: at once */
    acp_session_free(session);
    CHECK(acp_client_close(h->client) == 0);
    CHECK(acp_client_close(h->client) == 0); /* idempotent */
    acp_client_free(h->client);              /* refused inside its own callback */
    CHECK(strstr(acp_error_last(), "inside the client's own callback") != NULL);
}

static acp_client *spawn_agent(const char *state_flag, int mode) {
    const char *argv[5];
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;
    acp_client *client = NULL;
    argv[0] = ACP_NODE;
    argv[1] = ACP_TS_AGENT_DIR "/agent.mjs";
    argv[2] = state_flag;
    argv[3] = NULL;
    agent.argv = argv;
    agent.shutdown_grace_ms = 3000;
    options.mode = mode;
    options.client_name = "libacp-capi-test";
    options.client_version = "1.0";
    REQUIRE(acp_client_spawn(&client, &agent, &options) == 0);
    if (getenv("ACP_TEST_VERBOSE") != NULL) acp_client_observe_traffic(client, 1, 1);
    return client;
}

static char *checked_dump(struct host *h) {
    acp_session *session = NULL;
    char *copy;
    int i, saw_tool = 0, saw_granted = 0;
    REQUIRE(acp_client_session(&session, h->client, h->session_id) == 0);
    CHECK(strcmp(acp_session_id(session), h->session_id) == 0);
    CHECK(strcmp(acp_session_state(session), "idle") == 0);
    CHECK(acp_session_stop_reason(session) != NULL && strcmp(acp_session_stop_reason(session), "end_turn") == 0);
    CHECK(acp_session_config_options_json(session) != NULL);
    for (i = 0; i < acp_session_item_count(session); ++i) {
        if (acp_session_item_kind(session, i) == ACP_ITEM_TOOL_CALL) {
            saw_tool = 1;
            CHECK(strcmp(acp_session_item_id(session, i), "tc1") == 0);
            CHECK(strcmp(acp_session_item_status(session, i), "completed") == 0);
            CHECK(strcmp(acp_session_item_title(session, i), "Run rm -rf build") == 0);
        }
        if (acp_session_item_kind(session, i) == ACP_ITEM_AGENT_MESSAGE &&
            strcmp(acp_session_item_id(session, i), "m2") == 0) {
            saw_granted =
                strcmp(acp_session_item_text(session, i), "Permission granted (allow-once); the command ran.") == 0;
        }
    }
    CHECK(saw_tool);
    CHECK(saw_granted);
    CHECK(acp_session_item_kind(session, 999) == ACP_ENOTFOUND);
    copy = (char *)malloc(strlen(acp_session_json(session)) + 1);
    strcpy(copy, acp_session_json(session));
    acp_session_free(session);
    return copy;
}

int main(void) {
    char state_dir[] = "/tmp/acp-capi-state-XXXXXX";
    char state_flag[128];
    char request[256];
    char *live_dump, *replayed_dump, *agent_json = NULL;
    struct host a, b;
    unsigned long id = 0;
    acp_event *result;
    acp_session *missing = NULL;

    REQUIRE(mkdtemp(state_dir) != NULL);
    sprintf(state_flag, "--state-dir=%s", state_dir);
    CHECK(strcmp(acp_version(), "") != 0);

    /* --- client A: polled mode, the pull queue, one callback handler -------------- */
    memset(&a, 0, sizeof a);
    a.client = spawn_agent(state_flag, ACP_MODE_POLLED);
    CHECK(acp_client_fd(a.client) >= 0);
    REQUIRE(acp_client_set_handler(a.client, ACP_EVENT_PERMISSION_REQUEST, on_permission, &a, on_release) == 0);

    CHECK(acp_client_agent_json(&agent_json, a.client) == ACP_ESTATE);
    REQUIRE(acp_client_initialize(&id, a.client, NULL, NULL) == 0);
    result = wait_result(&a, id, 0);
    CHECK(acp_event_status(result)->code == ACP_OK);
    CHECK(strstr(acp_event_json(result), "libacp-ts-peer") != NULL);
    CHECK(strcmp(acp_event_method(result), "initialize") == 0);
    acp_event_free(result);
    REQUIRE(acp_client_agent_json(&agent_json, a.client) == 0);
    CHECK(strstr(agent_json, "\"capabilities\"") != NULL);
    acp_string_free(agent_json);

    /* Refused at once: invalid JSON never reaches the wire. */
    CHECK(acp_client_new_session(NULL, a.client, "{\"cwd\":", NULL, NULL) == ACP_EINVAL);
    CHECK(strlen(acp_error_last()) > 0);
    CHECK(acp_client_new_session(NULL, a.client, "{\"cwd\":42}", NULL, NULL) == ACP_EINVAL);

    REQUIRE(acp_client_new_session(&id, a.client, "{\"cwd\":\"/tmp\",\"mcpServers\":[]}", on_new_session, &a) == 0);
    while (!a.session_result_seen) REQUIRE(acp_client_run_once(a.client, -1) >= 0);
    REQUIRE(a.session_id[0] != '\0');

    /* An agent error carries its JSON-RPC code. */
    REQUIRE(acp_client_prompt_text(&id, a.client, "no-such-session", "hello", NULL, NULL) == 0);
    result = wait_result(&a, id, 0);
    CHECK(acp_event_status(result)->code == ACP_ERPC);
    CHECK(acp_event_status(result)->rpc_code == -32002);
    acp_event_free(result);

    REQUIRE(acp_client_observe_sessions(a.client, 1) == 0);
    REQUIRE(acp_client_report_updates(a.client, 1) == 0); /* both: changes and updates */
    REQUIRE(acp_client_prompt_text(&id, a.client, a.session_id, "permission", NULL, NULL) == 0);
    result = wait_result(&a, id, 0);
    CHECK(acp_event_status(result)->code == ACP_OK);
    CHECK(strstr(acp_event_json(result), "\"messageId\"") != NULL);
    acp_event_free(result);
    wait_idle(&a, 1, 0);
    CHECK(a.permission_requests == 1);
    live_dump = checked_dump(&a);
    /* The turn's changes, item by item: each insertion named the item now at its index. */
    CHECK(a.changes[ACP_CHANGE_TURN_ENDED] == 1);
    CHECK(a.changes[ACP_CHANGE_ITEM_INSERTED] >= 2);
    CHECK(a.changes[ACP_CHANGE_ITEM_CHANGED] >= 1);
    CHECK(a.bad_item_events == 0);
    {
        acp_session *session;
        int i;
        REQUIRE(acp_client_session(&session, a.client, a.session_id) == 0);
        CHECK(acp_session_item_count(session) == a.changes[ACP_CHANGE_ITEM_INSERTED]);
        for (i = 0; i < acp_session_item_count(session) && i < 64; ++i) {
            CHECK(strcmp(acp_session_item_id(session, i), a.inserted_ids[i]) == 0);
        }
        acp_session_free(session);
    }
    CHECK(acp_client_agent_v1_json(&agent_json, a.client) == ACP_ENOTFOUND); /* a v2 agent */

    CHECK(acp_client_session(&missing, a.client, "no-such-session") == ACP_ENOTFOUND);
    CHECK(acp_client_close(a.client) == 0);
    wait_closed(&a, 0);
    CHECK(acp_client_prompt_text(&id, a.client, a.session_id, "hello", NULL, NULL) == ACP_ECLOSED);
    CHECK(acp_client_is_closed(a.client) == 1);
    CHECK(a.releases == 0);
    acp_client_free(a.client);
    CHECK(a.releases == 1); /* the handler's release ran once, at free */

    /* --- client B: own thread, a fresh agent process on the same state ------------- */
    memset(&b, 0, sizeof b);
    strcpy(b.session_id, a.session_id);
    b.client = spawn_agent(state_flag, ACP_MODE_THREAD);
    CHECK(acp_client_fd(b.client) == ACP_ESTATE);
    REQUIRE(acp_client_initialize(&id, b.client, NULL, NULL) == 0);
    result = wait_result(&b, id, 1);
    CHECK(acp_event_status(result)->code == ACP_OK);
    acp_event_free(result);
    REQUIRE(acp_client_observe_sessions(b.client, 1) == 0);
    REQUIRE(acp_client_report_updates(b.client, 1) == 0); /* both: changes and updates */
    sprintf(request, "{\"sessionId\":\"%s\",\"cwd\":\"/tmp\",\"replayFrom\":{\"type\":\"start\"}}", b.session_id);
    REQUIRE(acp_client_resume_session(&id, b.client, request, NULL, NULL) == 0);
    result = wait_result(&b, id, 1); /* the replay arrived before it */
    CHECK(acp_event_status(result)->code == ACP_OK);
    acp_event_free(result);
    CHECK(b.idle_updates == 1); /* the resume's state snapshot */
    /* CLIENT-MUST-58: the replayed idle state is state, not a completion. */
    CHECK(b.changes[ACP_CHANGE_TURN_ENDED] == 0);
    CHECK(b.changes[ACP_CHANGE_REPLAY_ENDED] == 1);
    CHECK(b.changes[ACP_CHANGE_SESSION_ADDED] == 1);
    CHECK(b.changes[ACP_CHANGE_SESSION_RESET] == 0); /* client B never held the session */
    CHECK(b.changes[ACP_CHANGE_ITEM_INSERTED] == a.changes[ACP_CHANGE_ITEM_INSERTED]);
    CHECK(b.bad_item_events == 0);
    replayed_dump = checked_dump(&b);
    CHECK(strcmp(live_dump, replayed_dump) == 0); /* the replay rebuilt the very same model */
    if (strcmp(live_dump, replayed_dump) != 0)
        fprintf(stderr, "live:     %s\nreplayed: %s\n", live_dump, replayed_dump);

    /* A permission taken from the queue and answered from this thread while the loop
     * runs on libacp's: the answer crosses threads. */
    REQUIRE(acp_client_prompt_text(&id, b.client, b.session_id, "permission", NULL, NULL) == 0);
    wait_idle(&b, 2, 1);
    CHECK(b.permission_requests == 1);
    CHECK(b.changes[ACP_CHANGE_TURN_ENDED] == 1);
    REQUIRE(acp_client_prompt_text(NULL, b.client, b.session_id, "hello", on_result_close, &b) == 0);
    wait_closed(&b, 1);
    CHECK(b.session_result_seen);
    CHECK(acp_client_prompt_text(&id, b.client, b.session_id, "hello", NULL, NULL) == ACP_ECLOSED);
    acp_client_free(b.client);

    free(live_dump);
    free(replayed_dump);
    sprintf(request, "rm -rf '%s'", state_dir);
    CHECK(system(request) == 0);
    if (failures == 0) printf("capi session test: ok\n");
    return failures == 0 ? 0 : 1;
}
