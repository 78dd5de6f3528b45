/* SPDX-License-Identifier: Apache-2.0 */
/* A plain C host and the unstable auth/status_update notification, against the
 * TypeScript-SDK peer with --caps=unstable. With acp_client_options.unstable it arrives as
 * ACP_EVENT_AUTH_STATUS_UPDATE carrying the notification's JSON, both unsolicited (the
 * peer's "auth-update" turn) and after auth/status; without the opt-in no such event comes
 * (the notification is an unknown one) and auth/status is refused. */
#include <acp/acp.h>

#include <stdio.h>
#include <string.h>

#include "check.h"

static int auth_updates = 0;   /* ACP_EVENT_AUTH_STATUS_UPDATE seen */
static int unknown_auth = 0;   /* ACP_EVENT_UNKNOWN_NOTIFICATION of auth/status_update seen */
static char last_update[1024]; /* the last update's JSON */

static acp_event *next_event(acp_client *client) {
    acp_event *event = NULL;
    while (acp_client_next_event(&event, client) != 0) REQUIRE(acp_client_run_once(client, -1) >= 0);
    if (acp_event_type(event) == ACP_EVENT_AUTH_STATUS_UPDATE) {
        ++auth_updates;
        CHECK(acp_event_method(event) != NULL && strcmp(acp_event_method(event), "auth/status_update") == 0);
        REQUIRE(acp_event_json(event) != NULL && strlen(acp_event_json(event)) < sizeof last_update);
        strcpy(last_update, acp_event_json(event));
    }
    if (acp_event_type(event) == ACP_EVENT_UNKNOWN_NOTIFICATION && acp_event_method(event) != NULL &&
        strcmp(acp_event_method(event), "auth/status_update") == 0) {
        ++unknown_auth;
    }
    return event;
}

/* The request's result event (the caller frees it). */
static acp_event *wait_result(acp_client *client, unsigned long request) {
    for (;;) {
        acp_event *event = next_event(client);
        if (acp_event_type(event) == ACP_EVENT_RESULT && acp_event_request(event) == request) return event;
        acp_event_free(event);
    }
}

static void succeed(acp_client *client, unsigned long request) {
    acp_event *result = wait_result(client, request);
    REQUIRE(acp_event_status(result)->code == ACP_OK);
    acp_event_free(result);
}

static acp_client *start(int unstable) {
    const char *argv[4];
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;
    acp_client *client = NULL;
    unsigned long id = 0;
    argv[0] = ACP_NODE;
    argv[1] = ACP_TS_AGENT_DIR "/agent.mjs";
    argv[2] = "--caps=unstable";
    argv[3] = NULL;
    agent.argv = argv;
    options.unstable = unstable;
    REQUIRE(acp_client_spawn(&client, &agent, &options) == 0);
    REQUIRE(acp_client_initialize(&id, client, NULL, NULL) == 0);
    succeed(client, id);
    REQUIRE(acp_client_new_session(&id, client, "{\"cwd\":\"/tmp\",\"mcpServers\":[]}", NULL, NULL) == 0);
    succeed(client, id);
    auth_updates = unknown_auth = 0;
    last_update[0] = '\0';
    return client;
}

int main(void) {
    acp_client *client;
    acp_event *result;
    unsigned long id = 0;

    /* The opt-in: the unsolicited update is an event. */
    client = start(1);
    REQUIRE(acp_client_prompt_text(&id, client, "sess-1", "auth-update", NULL, NULL) == 0);
    succeed(client, id);
    while (auth_updates + unknown_auth == 0) acp_event_free(next_event(client)); /* the turn runs on */
    CHECK(auth_updates == 1 && unknown_auth == 0);
    CHECK(strstr(last_update, "\"state\":\"unauthenticated\"") != NULL);
    CHECK(strstr(last_update, "\"label\":\"Pushed account\"") != NULL);
    /* auth/status: the answer, then the agent pushes its state once more. */
    REQUIRE(acp_client_unstable_call(&id, client, "auth/status", "{}", NULL, NULL) == 0);
    result = wait_result(client, id);
    CHECK(acp_event_status(result)->code == ACP_OK);
    CHECK(strstr(acp_event_json(result), "\"state\":\"authenticated\"") != NULL);
    acp_event_free(result);
    while (auth_updates < 2) acp_event_free(next_event(client));
    CHECK(strcmp(last_update, "{\"state\":\"authenticated\"}") == 0);
    acp_client_free(client);

    /* Without it: no such event, the notification stays an unknown one; auth/status is
     * refused. */
    client = start(0);
    REQUIRE(acp_client_prompt_text(&id, client, "sess-1", "auth-update", NULL, NULL) == 0);
    succeed(client, id);
    while (auth_updates + unknown_auth == 0) acp_event_free(next_event(client)); /* the turn runs on */
    CHECK(auth_updates == 0 && unknown_auth == 1);
    if (acp_client_unstable_call(&id, client, "auth/status", "{}", NULL, NULL) == 0) {
        result = wait_result(client, id);
        CHECK(acp_event_status(result)->code != ACP_OK);
        acp_event_free(result);
    }
    CHECK(auth_updates == 0);
    acp_client_free(client);

    if (failures != 0) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
