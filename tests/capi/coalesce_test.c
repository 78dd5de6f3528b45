/* SPDX-License-Identifier: Apache-2.0 */
/* A host slower than the stream, against the TypeScript-SDK peer, with update events off
 * (by default while observing the sessions, ACP_UPDATES_AUTO, or acp_client_report_updates): the loop runs a whole turn
 * before the host pulls a single event, so every text change of one item that queued back to back must have coalesced
 * into one ACP_EVENT_SESSION_CHANGED carrying all the appended text. Each item built from
 * appended text alone must equal the model's text (no byte lost or doubled), items are
 * first seen in index order, and no ACP_EVENT_SESSION_UPDATE comes. (Items that also had
 * other changes are not compared: a lagging host that re-reads an item gets the model as
 * it is now, ahead of the queue; acp.h says so.) Exits 0 on success. */
#include <acp/acp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAX_ITEMS 32

struct follower {
    char *text[MAX_ITEMS];
    size_t size[MAX_ITEMS];
    int append_events[MAX_ITEMS]; /* change events that carried appended text, per item */
    int other_events[MAX_ITEMS];  /* item changes without appended text */
    int first_seen[MAX_ITEMS];    /* item indexes in the order events first named them */
    int seen;
    int update_events; /* ACP_EVENT_SESSION_UPDATE: must stay 0 */
};

static acp_client *client;
static char session_id[64];

static void set_text(struct follower *f, int index, const char *text, size_t size) {
    f->text[index] = (char *)realloc(f->text[index], size + 1);
    memcpy(f->text[index], text, size);
    f->text[index][size] = '\0';
    f->size[index] = size;
}

static void note_seen(struct follower *f, int index) {
    int i;
    for (i = 0; i < f->seen; ++i) {
        if (f->first_seen[i] == index) return;
    }
    f->first_seen[f->seen++] = index;
}

static void follow(struct follower *f, const acp_event *event) {
    int index = acp_event_item_index(event);
    int change = acp_event_change(event);
    size_t size = 0;
    const char *appended;
    if (acp_event_type(event) == ACP_EVENT_SESSION_UPDATE) ++f->update_events;
    if (acp_event_type(event) != ACP_EVENT_SESSION_CHANGED) return;
    if (change != ACP_CHANGE_ITEM_INSERTED && change != ACP_CHANGE_ITEM_CHANGED) return;
    REQUIRE(index >= 0 && index < MAX_ITEMS);
    note_seen(f, index);
    appended = acp_event_appended_text(event, &size);
    if (appended != NULL) {
        if (change == ACP_CHANGE_ITEM_INSERTED) set_text(f, index, "", 0);
        f->text[index] = (char *)realloc(f->text[index], f->size[index] + size + 1);
        memcpy(f->text[index] + f->size[index], appended, size);
        f->size[index] += size;
        f->text[index][f->size[index]] = '\0';
        ++f->append_events[index];
    } else {
        ++f->other_events[index];
    }
}

static acp_event *next_event(void) {
    acp_event *event = NULL;
    while (acp_client_next_event(&event, client) != 0) REQUIRE(acp_client_run_once(client, -1) >= 0);
    return event;
}

static void wait_result(unsigned long request, struct follower *f) {
    for (;;) {
        acp_event *event = next_event();
        int done = acp_event_type(event) == ACP_EVENT_RESULT && acp_event_request(event) == request;
        if (done) {
            REQUIRE(acp_event_status(event)->code == ACP_OK);
            if (acp_event_session_id(event) != NULL) {
                strncpy(session_id, acp_event_session_id(event), sizeof session_id - 1);
            }
        } else {
            follow(f, event);
        }
        acp_event_free(event);
        if (done) return;
    }
}

/* Runs the loop, pulling nothing, until the model of a session's first turn shows it over
 * (idle with a stop reason, more items than the user message). */
static void run_turn_unpulled(int items_before) {
    for (;;) {
        acp_session *snapshot = NULL;
        int ended;
        REQUIRE(acp_client_run_once(client, 50) >= 0);
        REQUIRE(acp_client_session(&snapshot, client, session_id) == 0);
        ended = acp_session_stop_reason(snapshot) != NULL && acp_session_state(snapshot) != NULL &&
                strcmp(acp_session_state(snapshot), "idle") == 0 && acp_session_item_count(snapshot) > items_before;
        acp_session_free(snapshot);
        if (ended) return;
    }
}

static void drain(struct follower *f) {
    acp_event *event = NULL;
    while (acp_client_next_event(&event, client) == 0) {
        follow(f, event);
        acp_event_free(event);
    }
}

static int find_index(const char *id) {
    acp_item *item = NULL;
    int index;
    if (acp_client_find_item(&item, client, session_id, ACP_ITEM_AGENT_MESSAGE, id) != 0 &&
        acp_client_find_item(&item, client, session_id, ACP_ITEM_AGENT_THOUGHT, id) != 0 &&
        acp_client_find_item(&item, client, session_id, ACP_ITEM_TERMINAL, id) != 0) {
        return -1;
    }
    index = acp_item_index(item);
    acp_item_free(item);
    return index;
}

/* The host's copy of every item followed by appended text alone equals the model's. */
static void check_same_as_model(const struct follower *f) {
    acp_session *snapshot = NULL;
    int i, count;
    REQUIRE(acp_client_session(&snapshot, client, session_id) == 0);
    count = acp_session_item_count(snapshot);
    REQUIRE(count <= MAX_ITEMS);
    for (i = 0; i < count; ++i) {
        acp_item *item = NULL;
        size_t size = 0;
        const char *text;
        if (f->other_events[i] != 0) continue;
        REQUIRE(acp_client_item(&item, client, session_id, i) == 0);
        text = acp_item_text(item, &size);
        if (text == NULL) text = "";
        CHECK(f->size[i] == size && (size == 0 || memcmp(f->text[i], text, size) == 0));
        if (f->size[i] != size) fprintf(stderr, "item %d: followed \"%s\", model \"%s\"\n", i, f->text[i], text);
        acp_item_free(item);
    }
    acp_session_free(snapshot);
}

int main(void) {
    const char *argv[3];
    acp_spawn_options agent;
    acp_client_options old_options;
    struct follower f;
    unsigned long id = 0;
    int i, m1, th1, term1;

    memset(&f, 0, sizeof f);
    REQUIRE(acp_spawn_options_init(&agent, ACP_SPAWN_OPTIONS_VERSION) == 0);
    argv[0] = ACP_NODE;
    argv[1] = ACP_TS_AGENT_DIR "/agent.mjs";
    argv[2] = NULL;
    agent.argv = argv;
    /* Default options (ACP_UPDATES_AUTO): observing the sessions is enough, the host
     * does not ask for the update events to go away. */
    REQUIRE(acp_client_spawn(&client, &agent, NULL) == 0);
    REQUIRE(acp_client_observe_sessions(client, 1) == 0);
    CHECK(acp_client_report_updates(NULL, 0) == ACP_EINVAL);
    REQUIRE(acp_client_initialize(&id, client, NULL, NULL) == 0);
    wait_result(id, &f);
    REQUIRE(acp_client_new_session(&id, client, "{\"cwd\":\"/tmp\",\"mcpServers\":[]}", NULL, NULL) == 0);
    wait_result(id, &f);
    REQUIRE(session_id[0] != '\0');

    /* "hello": two chunks of m1, pulled only after the turn: one event with both. */
    REQUIRE(acp_client_prompt_text(NULL, client, session_id, "hello", NULL, NULL) == 0);
    run_turn_unpulled(1);
    drain(&f);
    m1 = find_index("m1");
    REQUIRE(m1 >= 0);
    CHECK(strcmp(f.text[m1], "Hello, world!") == 0);
    CHECK(f.append_events[m1] == 1);
    CHECK(f.update_events == 0);
    check_same_as_model(&f);

    /* The same, chosen explicitly. */
    REQUIRE(acp_client_report_updates(client, 0) == 0);

    /* "tool", in a session of its own: message chunks, a thought, a tool call, a terminal
     * whose two output chunks split a UTF-8 character, another message. */
    for (i = 0; i < MAX_ITEMS; ++i) free(f.text[i]);
    memset(&f, 0, sizeof f);
    session_id[0] = '\0';
    REQUIRE(acp_client_new_session(&id, client, "{\"cwd\":\"/tmp\",\"mcpServers\":[]}", NULL, NULL) == 0);
    wait_result(id, &f);
    REQUIRE(session_id[0] != '\0');
    REQUIRE(acp_client_prompt_text(NULL, client, session_id, "tool", NULL, NULL) == 0);
    run_turn_unpulled(1);
    drain(&f);
    check_same_as_model(&f);
    m1 = find_index("m1");
    th1 = find_index("th1");
    term1 = find_index("term1");
    REQUIRE(m1 >= 0 && th1 >= 0 && term1 >= 0);
    CHECK(strcmp(f.text[m1], "Let me edit hello.txt.") == 0);
    CHECK(f.append_events[m1] == 1);
    CHECK(f.append_events[th1] == 1);
    CHECK(f.append_events[term1] == 1); /* both output chunks (splitting a character) in one event */
    CHECK(f.text[term1] != NULL && strcmp(f.text[term1], "build: \xE2\x9C\x93 ok\r\n") == 0);
    /* Order across items: first seen in the order they were inserted. */
    for (i = 1; i < f.seen; ++i) CHECK(f.first_seen[i] > f.first_seen[i - 1]);
    CHECK(f.seen >= 6);
    CHECK(f.update_events == 0);
    acp_client_free(client);

    /* A host written against options version 3 keeps its update events while observing. */
    for (i = 0; i < MAX_ITEMS; ++i) free(f.text[i]);
    memset(&f, 0, sizeof f);
    session_id[0] = '\0';
    REQUIRE(acp_client_options_init(&old_options, 3) == 0);
    REQUIRE(acp_client_spawn(&client, &agent, &old_options) == 0);
    REQUIRE(acp_client_observe_sessions(client, 1) == 0);
    REQUIRE(acp_client_initialize(&id, client, NULL, NULL) == 0);
    wait_result(id, &f);
    REQUIRE(acp_client_new_session(&id, client, "{\"cwd\":\"/tmp\",\"mcpServers\":[]}", NULL, NULL) == 0);
    wait_result(id, &f);
    REQUIRE(acp_client_prompt_text(NULL, client, session_id, "hello", NULL, NULL) == 0);
    run_turn_unpulled(1);
    drain(&f);
    CHECK(f.update_events > 0);
    check_same_as_model(&f);

    acp_client_free(client);
    for (i = 0; i < MAX_ITEMS; ++i) free(f.text[i]);
    return failures == 0 ? 0 : 1;
}
