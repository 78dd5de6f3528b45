/* SPDX-License-Identifier: Apache-2.0 */
/* A plain C host offers tool servers (acp_tool_server) to the TypeScript-SDK peer
 * tests/peers/ts-agent/tools-agent.mjs, which calls them over MCP over ACP with the SDK's
 * own McpOverAcpCaller, and answers every call through the responder of its
 * ACP_EVENT_TOOL_CALL: later and from another thread, with a tool error, a structured
 * result (a misfit of the output schema refused), a whole CallToolResult, progress, not at
 * all (dropped: an MCP error). Arguments that break the input schema never reach the host;
 * a call held when its session closes is withdrawn (ACP_EVENT_REQUEST_WITHDRAWN); an agent
 * with no MCP transport gets no setup at all. Exits 0
 * on success; every failed check prints its line. */
#define _POSIX_C_SOURCE 200809L
#include <acp/acp.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define MAX_LINES 16
#define MAX_THREADS 8

/* An answer given later, from a thread of the host's own. */
struct later {
    acp_responder *responder;
    const char *text;
    long delay_ms;
    int status; /* what the answer returned */
};

struct host {
    acp_client *client;
    char session_id[64];
    int tool_calls;  /* ACP_EVENT_TOOL_CALL events */
    int typed_calls; /* of them, calls of "typed" */
    char typed_arguments[128];
    acp_responder *held; /* the call of "never", unanswered */
    unsigned long held_id;
    int withdrawn;               /* REQUEST_WITHDRAWN of held_id seen */
    int session_new_lines_out;   /* outgoing session/new requests seen in the traffic */
    char lines[MAX_LINES][2048]; /* the agent's reply, one line per message */
    int line_count;
    int turn_ended;
    pthread_t threads[MAX_THREADS];
    struct later answers[MAX_THREADS];
    int thread_count;
};

static void *answer_later(void *arg) {
    struct later *later = (struct later *)arg;
    struct timespec pause;
    pause.tv_sec = 0;
    pause.tv_nsec = later->delay_ms * 1000000L;
    nanosleep(&pause, NULL);
    later->status = acp_responder_tool_text(later->responder, later->text);
    acp_responder_free(later->responder);
    return NULL;
}

static void answer_in_thread(struct host *h, acp_responder *r, const char *text, long delay_ms) {
    struct later *later;
    REQUIRE(h->thread_count < MAX_THREADS);
    later = &h->answers[h->thread_count];
    later->responder = r;
    later->text = text;
    later->delay_ms = delay_ms;
    later->status = 1;
    REQUIRE(pthread_create(&h->threads[h->thread_count], NULL, answer_later, later) == 0);
    ++h->thread_count;
}

static void serve_tool(struct host *h, const acp_event *event) {
    const char *tool = acp_event_tool_name(event);
    acp_responder *r = NULL;
    ++h->tool_calls;
    CHECK(strcmp(acp_event_tool_server(event), "editor") == 0);
    CHECK(acp_event_session_id(event) != NULL && strcmp(acp_event_session_id(event), h->session_id) == 0);
    REQUIRE(acp_event_take_responder(&r, event) == 0);
    CHECK(acp_responder_id(r) == acp_event_request(event));
    CHECK(acp_responder_withdrawn(r) == 0);
    CHECK(acp_responder_select(r, "allow") == ACP_ESTATE); /* a permission answer does not fit */
    if (strcmp(tool, "current_selection") == 0) {
        CHECK(strcmp(acp_event_json(event), "{}") == 0);
        answer_in_thread(h, r, "int main", 0);
        return;
    }
    if (strcmp(tool, "slow") == 0) {
        CHECK(acp_responder_tool_progress(r, 1, 2, "half way") == 0);
        /* The SDK's caller drops progress that arrives after the answer: answer 100 ms on. */
        answer_in_thread(h, r, "slow done", 100);
        return;
    }
    if (strcmp(tool, "never") == 0) {
        h->held = r;
        h->held_id = acp_event_request(event);
        return;
    }
    if (strcmp(tool, "fail") == 0) {
        CHECK(acp_responder_tool_error(r, "no selection") == 0);
    } else if (strcmp(tool, "structured") == 0) {
        /* Refused here, unanswered: it does not fit the output schema, or is no object. */
        CHECK(acp_responder_tool_structured(r, "{\"line\":\"three\"}") == ACP_EINVAL);
        CHECK(strstr(acp_error_last(), "output schema") != NULL);
        CHECK(acp_responder_tool_structured(r, "[3]") == ACP_EINVAL);
        CHECK(acp_responder_answered(r) == 0);
        CHECK(acp_responder_tool_structured(r, "{\"line\":3}") == 0);
    } else if (strcmp(tool, "typed") == 0) {
        ++h->typed_calls;
        strncpy(h->typed_arguments, acp_event_json(event), sizeof h->typed_arguments - 1);
        CHECK(acp_responder_tool_text(r, "typed ok") == 0);
    } else if (strcmp(tool, "whole") == 0) {
        CHECK(acp_responder_tool_result(r, "not json") == ACP_EINVAL);
        CHECK(acp_responder_tool_result(
                  r, "{\"content\":[{\"type\":\"text\",\"text\":\"whole\"}],\"_meta\":{\"k\":1}}") == 0);
    } else if (strcmp(tool, "drop") == 0) {
        acp_responder_free(r); /* unanswered: the MCP error -32603 */
        return;
    } else {
        fprintf(stderr, "unexpected tool %s\n", tool);
        ++failures;
    }
    CHECK(acp_responder_answered(r) == 1);
    CHECK(acp_responder_tool_text(r, "twice") == ACP_ESTATE); /* exactly once */
    CHECK(acp_responder_tool_progress(r, 1, 0, NULL) == ACP_ESTATE);
    acp_responder_free(r);
}

static void observe(struct host *h, const acp_event *event) {
    size_t size = 0;
    const char *text;
    switch (acp_event_type(event)) {
        case ACP_EVENT_TOOL_CALL: serve_tool(h, event); break;
        case ACP_EVENT_TRAFFIC:
            if (acp_event_direction(event) == ACP_DIRECTION_OUTGOING &&
                strstr(acp_event_text(event), "\"method\":\"session/new\"") != NULL) {
                ++h->session_new_lines_out;
            }
            break;
        case ACP_EVENT_REQUEST_WITHDRAWN:
            CHECK(acp_event_request(event) == h->held_id);
            if (acp_event_request(event) == h->held_id) h->withdrawn = 1;
            break;
        case ACP_EVENT_SESSION_CHANGED:
            if (acp_event_session_id(event) == NULL || strcmp(acp_event_session_id(event), h->session_id) != 0) break;
            text = acp_event_appended_text(event, &size);
            if (text != NULL && acp_event_item_kind(event) == ACP_ITEM_AGENT_MESSAGE) {
                char *line;
                if (acp_event_change(event) == ACP_CHANGE_ITEM_INSERTED) {
                    REQUIRE(h->line_count < MAX_LINES);
                    h->lines[h->line_count++][0] = '\0';
                }
                REQUIRE(h->line_count > 0);
                line = h->lines[h->line_count - 1];
                REQUIRE(strlen(line) + size < sizeof h->lines[0]);
                strncat(line, text, size);
            }
            if (acp_event_change(event) == ACP_CHANGE_TURN_ENDED) h->turn_ended = 1;
            break;
        default: break;
    }
}

static acp_event *next_event(struct host *h) {
    acp_event *event = NULL;
    while (acp_client_next_event(&event, h->client) != 0) REQUIRE(acp_client_run_once(h->client, -1) >= 0);
    return event;
}

/* Runs the polled loop until the result of request arrives; returns it (caller frees). */
static acp_event *wait_result(struct host *h, unsigned long request) {
    for (;;) {
        acp_event *event = next_event(h);
        if (acp_event_type(event) == ACP_EVENT_RESULT && acp_event_request(event) == request) return event;
        observe(h, event);
        acp_event_free(event);
    }
}

static void expect_ok(struct host *h, unsigned long request) {
    acp_event *result = wait_result(h, request);
    CHECK(acp_event_status(result)->code == ACP_OK);
    if (acp_event_status(result)->code != ACP_OK) fprintf(stderr, "  %s\n", acp_event_status(result)->message);
    acp_event_free(result);
}

/* Sends the script as a prompt and waits for the end of its turn. */
static void run_script(struct host *h, const char *script) {
    unsigned long id = 0;
    h->line_count = 0;
    h->turn_ended = 0;
    REQUIRE(acp_client_prompt_text(&id, h->client, h->session_id, script, NULL, NULL) == 0);
    expect_ok(h, id);
    while (!h->turn_ended) {
        acp_event *event = next_event(h);
        observe(h, event);
        acp_event_free(event);
    }
}

static int has(const char *line, const char *part) {
    if (strstr(line, part) != NULL) return 1;
    fprintf(stderr, "  expected \"%s\" in: %s\n", part, line);
    return 0;
}

static acp_tool_server *make_editor(void) {
    acp_tool_server *editor = NULL;
    acp_tool_server_options options = ACP_TOOL_SERVER_OPTIONS_INIT;
    options.server_version = "2.0.0";
    REQUIRE(acp_tool_server_new(&editor, "editor", &options) == 0);
    REQUIRE(acp_tool_server_add_tool(editor, "current_selection", "Current selection", "The selected text", NULL, NULL,
                                     "{\"readOnlyHint\":true}") == 0);
    REQUIRE(acp_tool_server_add_tool(editor, "fail", NULL, NULL, NULL, NULL, NULL) == 0);
    REQUIRE(acp_tool_server_add_tool(editor, "structured", NULL, NULL, NULL,
                                     "{\"type\":\"object\",\"properties\":{\"line\":{\"type\":\"integer\"}},"
                                     "\"required\":[\"line\"]}",
                                     NULL) == 0);
    REQUIRE(acp_tool_server_add_tool(editor, "typed", NULL, "Opens a file",
                                     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},"
                                     "\"required\":[\"path\"]}",
                                     NULL, NULL) == 0);
    REQUIRE(acp_tool_server_add_tool(editor, "whole", NULL, NULL, NULL, NULL, NULL) == 0);
    REQUIRE(acp_tool_server_add_tool(editor, "drop", NULL, NULL, NULL, NULL, NULL) == 0);
    REQUIRE(acp_tool_server_add_tool(editor, "slow", NULL, NULL, NULL, NULL, NULL) == 0);
    REQUIRE(acp_tool_server_add_tool(editor, "never", NULL, NULL, NULL, NULL, NULL) == 0);

    /* Refused, nothing added. */
    CHECK(acp_tool_server_add_tool(editor, "fail", NULL, NULL, NULL, NULL, NULL) == ACP_EINVAL); /* duplicate */
    CHECK(acp_tool_server_add_tool(editor, "bad name", NULL, NULL, NULL, NULL, NULL) == ACP_EINVAL);
    CHECK(acp_tool_server_add_tool(editor, "t", NULL, NULL, "[1]", NULL, NULL) == ACP_EINVAL);
    CHECK(acp_tool_server_add_tool(editor, "t", NULL, NULL, NULL, "{", NULL) == ACP_EINVAL);
    CHECK(acp_tool_server_add_tool(editor, "t", NULL, NULL, NULL, NULL, "true") == ACP_EINVAL);
    CHECK(acp_tool_server_add_tool(editor, NULL, NULL, NULL, NULL, NULL, NULL) == ACP_EINVAL);
    CHECK(acp_tool_server_tool_count(editor) == 8);
    return editor;
}

int main(void) {
    struct host h;
    const char *argv[4];
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_tool_server *editor, *other = NULL, *servers[2];
    acp_tool_server_options bad_options = ACP_TOOL_SERVER_OPTIONS_INIT;
    acp_event *result;
    unsigned long id = 0;
    int i;

    memset(&h, 0, sizeof h);
    CHECK(acp_tool_server_new(&other, "", NULL) == ACP_EINVAL);
    CHECK(acp_tool_server_new(&other, NULL, NULL) == ACP_EINVAL);
    bad_options.version = 99;
    CHECK(acp_tool_server_new(&other, "x", &bad_options) == ACP_EINVAL);
    CHECK(acp_tool_server_options_init(&bad_options, 99) == ACP_EINVAL);
    REQUIRE(acp_tool_server_options_init(&bad_options, ACP_TOOL_SERVER_OPTIONS_VERSION) == 0);
    CHECK(bad_options.max_concurrent_calls == 0 && bad_options.server_version == NULL);
    editor = make_editor();

    argv[0] = ACP_NODE;
    argv[1] = ACP_TS_AGENT_DIR "/tools-agent.mjs";
    argv[2] = NULL;
    agent.argv = argv;
    REQUIRE(acp_client_spawn(&h.client, &agent, NULL) == 0);
    REQUIRE(acp_client_observe_sessions(h.client, 1) == 0);
    REQUIRE(acp_client_report_updates(h.client, 0) == 0);
    REQUIRE(acp_client_initialize(&id, h.client, NULL, NULL) == 0);
    expect_ok(&h, id);

    /* Refused at once: a NULL server, two servers with one name. */
    servers[0] = editor;
    servers[1] = NULL;
    CHECK(acp_client_new_session_with_tools(&id, h.client, "{\"cwd\":\"/tmp\"}", servers, 2, NULL, NULL) == ACP_EINVAL);
    REQUIRE(acp_tool_server_new(&other, "editor", NULL) == 0);
    servers[1] = other;
    CHECK(acp_client_new_session_with_tools(&id, h.client, "{\"cwd\":\"/tmp\"}", servers, 2, NULL, NULL) == ACP_EINVAL);
    CHECK(strstr(acp_error_last(), "editor") != NULL);
    acp_tool_server_free(other);

    REQUIRE(acp_client_new_session_with_tools(&id, h.client, "{\"cwd\":\"/tmp\"}", &editor, 1, NULL, NULL) == 0);
    result = wait_result(&h, id);
    REQUIRE(acp_event_status(result)->code == ACP_OK);
    REQUIRE(acp_event_session_id(result) != NULL);
    strncpy(h.session_id, acp_event_session_id(result), sizeof h.session_id - 1);
    acp_event_free(result);

    run_script(&h,
               "list\n"
               "call current_selection\n"
               "call fail\n"
               "call structured\n"
               "call typed {\"path\":7}\n"
               "call typed {\"path\":\"a.c\"}\n"
               "call whole\n"
               "call drop\n"
               "progress slow");
    for (i = 0; i < h.thread_count; ++i) {
        REQUIRE(pthread_join(h.threads[i], NULL) == 0);
        CHECK(h.answers[i].status == 0);
    }
    h.thread_count = 0;
    REQUIRE(h.line_count == 9);
    CHECK(has(h.lines[0], "\"name\":\"current_selection\""));
    CHECK(has(h.lines[0], "\"annotations\":{\"readOnlyHint\":true}"));
    CHECK(has(h.lines[0], "\"outputSchema\":{\"type\":\"object\""));
    /* Answered later, from another thread. */
    CHECK(has(h.lines[1], "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"int main\"}]}}"));
    /* A tool error is a result the model sees, not an MCP error. */
    CHECK(
        has(h.lines[2], "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"no selection\"}],\"isError\":true}}"));
    CHECK(has(h.lines[3], "\"structuredContent\":{\"line\":3}"));
    /* Bad input: an MCP error, and the host never saw the call. */
    CHECK(has(h.lines[4], "{\"error\":{\"code\":-32602"));
    CHECK(has(h.lines[5], "\"text\":\"typed ok\""));
    CHECK(h.typed_calls == 1);
    CHECK(strcmp(h.typed_arguments, "{\"path\":\"a.c\"}") == 0);
    CHECK(has(h.lines[6], "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"whole\"}],\"_meta\":{\"k\":1}}}"));
    /* A responder dropped unanswered: the MCP internal error. */
    CHECK(has(h.lines[7], "{\"error\":{\"code\":-32603"));
    CHECK(has(h.lines[8], "\"text\":\"slow done\""));
    CHECK(has(h.lines[8], "progress=1"));
    CHECK(h.tool_calls == 7);

    /* A resume with the same server: served again, under a fresh registration. */
    {
        char request[128];
        sprintf(request, "{\"sessionId\":\"%s\",\"cwd\":\"/tmp\"}", h.session_id);
        REQUIRE(acp_client_resume_session_with_tools(&id, h.client, request, &editor, 1, NULL, NULL) == 0);
        expect_ok(&h, id);
    }
    acp_tool_server_free(editor); /* the session keeps serving it */
    run_script(&h, "call current_selection");
    REQUIRE(pthread_join(h.threads[0], NULL) == 0);
    CHECK(h.answers[0].status == 0);
    h.thread_count = 0;
    REQUIRE(h.line_count == 1);
    CHECK(has(h.lines[0], "\"text\":\"int main\""));

    /* A call held when its session closes is withdrawn; a late answer goes nowhere. */
    REQUIRE(acp_client_prompt_text(&id, h.client, h.session_id, "call never", NULL, NULL) == 0);
    expect_ok(&h, id);
    while (h.held == NULL) {
        acp_event *event = next_event(&h);
        observe(&h, event);
        acp_event_free(event);
    }
    REQUIRE(acp_client_close_session(&id, h.client, h.session_id, NULL, NULL) == 0);
    expect_ok(&h, id);
    while (!h.withdrawn) {
        acp_event *event = next_event(&h);
        observe(&h, event);
        acp_event_free(event);
    }
    CHECK(acp_responder_withdrawn(h.held) == 1);
    CHECK(acp_responder_tool_text(h.held, "late") == 0);
    acp_responder_free(h.held);

    acp_client_free(h.client);

    /* CLIENT-MUST-33: an agent with no MCP transport libacp serves gets nothing; the
     * setup fails before sending, naming what the agent supports. */
    memset(&h, 0, sizeof h);
    argv[1] = ACP_TS_AGENT_DIR "/agent.mjs";
    argv[2] = "--caps=none";
    argv[3] = NULL;
    REQUIRE(acp_client_spawn(&h.client, &agent, NULL) == 0);
    REQUIRE(acp_client_observe_traffic(h.client, 1, 1) == 0);
    REQUIRE(acp_client_initialize(&id, h.client, NULL, NULL) == 0);
    expect_ok(&h, id);
    editor = make_editor();
    REQUIRE(acp_client_new_session_with_tools(&id, h.client, "{\"cwd\":\"/tmp\"}", &editor, 1, NULL, NULL) == 0);
    acp_tool_server_free(editor);
    result = wait_result(&h, id);
    CHECK(acp_event_status(result)->code == ACP_EUNSUPPORTED);
    CHECK(strstr(acp_event_status(result)->message, "session.mcp") != NULL);
    acp_event_free(result);
    CHECK(h.session_new_lines_out == 0);
    acp_client_free(h.client);

    if (failures == 0) printf("tools_test: ok\n");
    return failures == 0 ? 0 : 1;
}
