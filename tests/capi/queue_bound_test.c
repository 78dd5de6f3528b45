/* SPDX-License-Identifier: Apache-2.0 */
/* A host that stops pulling while an agent floods a turn with text keeps bounded memory,
 * and loses no text once it pulls again (acp_client_set_event_queue_bound). The agent
 * (tests/peers: the benchmarks' flood agent) writes a 150,000-chunk reply (about 4.5 MiB
 * of text) as fast as the pipe takes it. With update events off, each chunk's text joins
 * the one coalesced change event waiting in the pull queue; the queue is bounded at
 * 256 KiB, so the client must stop reading from the agent: the model (which holds what
 * was read) stays near the bound and the turn does not end while nobody pulls. Then the
 * host pulls until the turn ends: the text it followed equals the model's and all the
 * agent sent. Exits 0 on success. */
#include <acp/acp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define CHUNKS 150000L
#define BOUND (256u * 1024u)
/* What one read from the agent may add after the bound is passed: the read buffer's lines
 * are all taken before reading stops (64 KiB of JSON, far less text). */
#define SLACK (64u * 1024u)

static acp_client *client;
static char session_id[64];

static acp_event *next_event(void) {
    acp_event *event = NULL;
    while (acp_client_next_event(&event, client) != 0) REQUIRE(acp_client_run_once(client, -1) >= 0);
    return event;
}

static void wait_result(unsigned long request) {
    for (;;) {
        acp_event *event = next_event();
        int done = acp_event_type(event) == ACP_EVENT_RESULT && acp_event_request(event) == request;
        if (done) {
            REQUIRE(acp_event_status(event)->code == ACP_OK);
            if (acp_event_session_id(event) != NULL) {
                strncpy(session_id, acp_event_session_id(event), sizeof session_id - 1);
            }
        }
        acp_event_free(event);
        if (done) return;
    }
}

/* The bytes of text the model holds for the reply (0 before its first chunk). */
static size_t model_text(void) {
    acp_item *item = NULL;
    size_t size = 0;
    if (acp_client_find_item(&item, client, session_id, ACP_ITEM_AGENT_MESSAGE, "m1") != 0) return 0;
    if (acp_item_text(item, &size) == NULL) size = 0;
    acp_item_free(item);
    return size;
}

/* What the flood agent sends: "token I of a flood, café " for I = 0 .. CHUNKS-1. */
static size_t flood_bytes(void) {
    size_t total = 0;
    long i;
    char token[64];
    for (i = 0; i < CHUNKS; ++i) total += (size_t)sprintf(token, "token %ld of a flood, caf\xC3\xA9 ", i);
    return total;
}

int main(void) {
    const char *argv[2];
    acp_spawn_options agent;
    unsigned long id = 0;
    char prompt[32];
    char *followed = NULL;
    size_t followed_size = 0, largest = 0, expected = flood_bytes();
    int ended = 0, round;

    REQUIRE(acp_spawn_options_init(&agent, ACP_SPAWN_OPTIONS_VERSION) == 0);
    argv[0] = ACP_FLOOD_AGENT;
    argv[1] = NULL;
    agent.argv = argv;
    REQUIRE(acp_client_spawn(&client, &agent, NULL) == 0);
    REQUIRE(acp_client_observe_sessions(client, 1) == 0);
    REQUIRE(acp_client_report_updates(client, 0) == 0);
    REQUIRE(acp_client_set_event_queue_bound(client, BOUND) == 0);
    CHECK(acp_client_set_event_queue_bound(NULL, BOUND) == ACP_EINVAL);
    REQUIRE(acp_client_initialize(&id, client, NULL, NULL) == 0);
    wait_result(id);
    REQUIRE(acp_client_new_session(&id, client, "{\"cwd\":\"/tmp\",\"mcpServers\":[]}", NULL, NULL) == 0);
    wait_result(id);
    REQUIRE(session_id[0] != '\0');

    /* The host stops pulling: the loop runs until the model is near the bound... */
    sprintf(prompt, "flood %ld", CHUNKS);
    REQUIRE(acp_client_prompt_text(NULL, client, session_id, prompt, NULL, NULL) == 0);
    for (round = 0; round < 1200 && model_text() < BOUND / 2; ++round) REQUIRE(acp_client_run_once(client, 50) >= 0);
    REQUIRE(model_text() >= BOUND / 2);
    /* ...and on for a second: the client reads no more (without the bound the whole reply,
     * 4.5 MiB, would arrive in that time). */
    for (round = 0; round < 20; ++round) {
        size_t now;
        REQUIRE(acp_client_run_once(client, 50) >= 0);
        now = model_text();
        if (now > largest) largest = now;
    }
    CHECK(largest <= BOUND + SLACK);
    if (largest > BOUND + SLACK) fprintf(stderr, "the model took %zu bytes of text while nobody pulled\n", largest);
    CHECK(largest < expected);

    /* The host pulls again: every byte arrives, in order, and the turn ends. */
    while (!ended) {
        acp_event *event = next_event();
        size_t size = 0;
        const char *appended = acp_event_appended_text(event, &size);
        if (appended != NULL && acp_event_type(event) == ACP_EVENT_SESSION_CHANGED) {
            followed = (char *)realloc(followed, followed_size + size + 1);
            REQUIRE(followed != NULL);
            memcpy(followed + followed_size, appended, size);
            followed_size += size;
        }
        ended = acp_event_type(event) == ACP_EVENT_SESSION_CHANGED && acp_event_change(event) == ACP_CHANGE_TURN_ENDED;
        acp_event_free(event);
    }
    CHECK(followed_size == expected);
    CHECK(model_text() == expected);
    if (followed_size != expected) fprintf(stderr, "followed %zu bytes of %zu\n", followed_size, expected);
    {
        acp_item *item = NULL;
        size_t size = 0;
        const char *text;
        REQUIRE(acp_client_find_item(&item, client, session_id, ACP_ITEM_AGENT_MESSAGE, "m1") == 0);
        text = acp_item_text(item, &size);
        CHECK(text != NULL && size == followed_size && memcmp(text, followed, size) == 0);
        acp_item_free(item);
    }
    CHECK(followed_size > 40 && memcmp(followed, "token 0 of a flood, caf\xC3\xA9 token 1 ", 33) == 0);

    acp_client_free(client);
    free(followed);
    return failures == 0 ? 0 : 1;
}
