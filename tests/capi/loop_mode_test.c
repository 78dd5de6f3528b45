/* SPDX-License-Identifier: Apache-2.0 */
/* The host's own libuv loop (ACP_MODE_LOOP) with callbacks only (no pull queue): each
 * result callback starts the next call, a handler closes the client when the turn ends,
 * and uv_run returns once the agent has gone. Exits 0 on success. */
#include <acp/acp.h>
#include <uv.h>

#include <stdio.h>
#include <string.h>

#include "check.h"

struct host {
    acp_client *client;
    char session_id[64];
    int steps;
    int idle;
    int closed;
    int releases;
};

static void on_prompted(const acp_event *result, void *userdata) {
    struct host *h = (struct host *)userdata;
    CHECK(acp_event_status(result)->code == ACP_OK);
    ++h->steps;
}

static void on_session(const acp_event *result, void *userdata) {
    struct host *h = (struct host *)userdata;
    const char *id = strstr(acp_event_json(result), "\"sessionId\":\"");
    CHECK(acp_event_status(result)->code == ACP_OK);
    if (id == NULL) return;
    id += strlen("\"sessionId\":\"");
    memcpy(h->session_id, id, (size_t)(strchr(id, '"') - id));
    ++h->steps;
    CHECK(acp_client_prompt_text(NULL, h->client, h->session_id, "hello", on_prompted, h) == 0);
}

static void on_initialized(const acp_event *result, void *userdata) {
    struct host *h = (struct host *)userdata;
    CHECK(acp_event_status(result)->code == ACP_OK);
    ++h->steps;
    CHECK(acp_client_new_session(NULL, h->client, "{\"cwd\":\"/tmp\"}", on_session, h) == 0);
}

static void on_update(const acp_event *event, void *userdata) {
    struct host *h = (struct host *)userdata;
    const char *json = acp_event_json(event);
    if (strstr(json, "\"state\":\"idle\"") != NULL) {
        ++h->idle;
        CHECK(acp_client_close(h->client) == 0); /* legal inside a handler */
    }
}

static void on_closed(const acp_event *event, void *userdata) {
    struct host *h = (struct host *)userdata;
    CHECK(acp_event_status(event)->code == ACP_ECLOSED);
    ++h->closed;
}

static void on_release(void *userdata) { ++((struct host *)userdata)->releases; }

int main(void) {
    uv_loop_t loop;
    struct host h;
    const char *argv[3];
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;

    memset(&h, 0, sizeof h);
    CHECK(uv_loop_init(&loop) == 0);
    argv[0] = ACP_NODE;
    argv[1] = ACP_TS_AGENT_DIR "/agent.mjs";
    argv[2] = NULL;
    agent.argv = argv;
    options.mode = ACP_MODE_LOOP;
    options.uv_loop = &loop;
    options.queue_events = 0;
    if (acp_client_spawn(&h.client, &agent, &options) != 0) {
        fprintf(stderr, "spawn: %s\n", acp_error_last());
        return 1;
    }
    CHECK(acp_client_fd(h.client) == ACP_ESTATE); /* the host's loop is watched by the host */
    CHECK(acp_client_set_handler(h.client, ACP_EVENT_SESSION_UPDATE, on_update, &h, on_release) == 0);
    CHECK(acp_client_set_handler(h.client, ACP_EVENT_CLOSED, on_closed, &h, on_release) == 0);
    /* Observing the sessions as well: the update handler keeps the update events coming
     * (ACP_UPDATES_AUTO turns them off only for a host without one; else no idle, a hang). */
    CHECK(acp_client_observe_sessions(h.client, 1) == 0);
    CHECK(acp_client_initialize(NULL, h.client, on_initialized, &h) == 0);
    uv_run(&loop, UV_RUN_DEFAULT); /* returns when the agent is gone */
    CHECK(h.steps == 3);           /* initialize, session/new, session/prompt */
    CHECK(h.idle == 1);
    CHECK(h.closed == 1);
    CHECK(acp_client_prompt_text(NULL, h.client, h.session_id, "again", NULL, NULL) == ACP_ECLOSED);
    acp_client_free(h.client);
    CHECK(h.releases == 2);
    uv_run(&loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&loop) == 0);
    if (failures == 0) printf("capi loop mode test: ok\n");
    return failures == 0 ? 0 : 1;
}
