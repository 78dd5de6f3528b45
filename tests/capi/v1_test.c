/* SPDX-License-Identifier: Apache-2.0 */
/* A plain C host against the TypeScript-SDK peer's v1 entry point (tests/peers/ts-agent/
 * agent-v1.mjs) through include/acp/acp.h only: the version negotiated down and readable,
 * the v1 client methods (fs and terminal methods) advertised only when served and answered
 * through responders (an answer that does not fit the method's v1 response refused), the
 * protocol_version option, options structs of version 1 still accepted, and libacp's
 * own fs handlers confined to the session's directories. Exits 0 on
 * success; every failed check prints its line. */
#include <acp/acp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* What the host has seen, and how it answers the agent's client-method requests. */
struct host {
    acp_client *client;
    char session_id[64];
    char cwd[128];
    int initialize_lines_out; /* outgoing initialize requests seen in the traffic */
    int client_requests;      /* ACP_EVENT_CLIENT_REQUEST events */
    char written[64];         /* what fs/write_text_file asked to write */
    int closed;
};

/* The host's file system and terminals, as far as the peer's scripts need them. Every
 * answer goes through a responder taken from the event, as an IDE answering later would. */
static void serve(struct host *h, const acp_event *event) {
    const char *method = acp_event_method(event);
    const char *json = acp_event_json(event);
    acp_responder *r = NULL;
    ++h->client_requests;
    CHECK(acp_event_session_id(event) != NULL && strcmp(acp_event_session_id(event), h->session_id) == 0);
    REQUIRE(acp_event_take_responder(&r, event) == 0);
    CHECK(acp_responder_id(r) == acp_event_request(event));
    if (strcmp(method, "fs/read_text_file") == 0) {
        char path[160];
        sprintf(path, "\"path\":\"%s/in.txt\"", h->cwd);
        CHECK(strstr(json, path) != NULL);
        /* Not a ReadTextFileResponse: refused before anything is sent; still answerable. */
        CHECK(acp_responder_respond(r, "{\"content\":42}") == ACP_EINVAL);
        CHECK(strstr(acp_error_last(), "fs/read_text_file") != NULL);
        CHECK(acp_responder_respond(r, "[1,") == ACP_EINVAL);
        CHECK(acp_responder_answered(r) == 0);
        CHECK(acp_responder_select(r, "allow-once") == ACP_ESTATE); /* a permission answer does not fit */
        CHECK(acp_responder_respond(r, "{\"content\":\"hello\"}") == 0);
    } else if (strcmp(method, "fs/write_text_file") == 0) {
        const char *content = strstr(json, "\"content\":\"");
        REQUIRE(content != NULL);
        content += strlen("\"content\":\"");
        memcpy(h->written, content, (size_t)(strchr(content, '"') - content));
        CHECK(acp_responder_respond(r, "{}") == 0);
    } else if (strcmp(method, "terminal/create") == 0) {
        CHECK(strstr(json, "\"command\":\"echo\"") != NULL);
        CHECK(acp_responder_respond(r, "{\"terminalId\":\"t-1\"}") == 0);
    } else if (strcmp(method, "terminal/wait_for_exit") == 0) {
        CHECK(strstr(json, "\"terminalId\":\"t-1\"") != NULL);
        CHECK(acp_responder_respond(r, "{\"exitCode\":0}") == 0);
    } else if (strcmp(method, "terminal/output") == 0) {
        CHECK(acp_responder_respond(r, "{\"output\":\"hi\\n\",\"truncated\":false}") == 0);
    } else if (strcmp(method, "terminal/release") == 0) {
        CHECK(acp_responder_respond(r, "{}") == 0);
    } else {
        fprintf(stderr, "unexpected client request %s\n", method);
        ++failures;
    }
    CHECK(acp_responder_answered(r) == 1);
    CHECK(acp_responder_respond(r, "{}") == ACP_ESTATE); /* exactly once */
    acp_responder_free(r);
}

static void observe(struct host *h, const acp_event *event) {
    switch (acp_event_type(event)) {
        case ACP_EVENT_TRAFFIC:
            if (acp_event_direction(event) == ACP_DIRECTION_OUTGOING &&
                strstr(acp_event_text(event), "\"method\":\"initialize\"") != NULL) {
                ++h->initialize_lines_out;
            }
            break;
        case ACP_EVENT_CLIENT_REQUEST: serve(h, event); break;
        case ACP_EVENT_CLOSED: h->closed = 1; break;
        default: break;
    }
}

/* Runs the polled loop until the result of request arrives; returns it (caller frees). */
static acp_event *wait_result(struct host *h, unsigned long request) {
    for (;;) {
        acp_event *event = NULL;
        while (acp_client_next_event(&event, h->client) != 0) REQUIRE(acp_client_run_once(h->client, -1) >= 0);
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

static acp_client *spawn_v1_agent(int protocol_version) {
    const char *argv[3];
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;
    acp_client *client = NULL;
    argv[0] = ACP_NODE;
    argv[1] = ACP_TS_AGENT_DIR "/agent-v1.mjs";
    argv[2] = NULL;
    agent.argv = argv;
    options.client_name = "libacp-capi-v1-test";
    options.client_version = "1.0";
    options.protocol_version = protocol_version;
    REQUIRE(acp_client_spawn(&client, &agent, &options) == 0);
    REQUIRE(acp_client_observe_traffic(client, 1, 1) == 0);
    return client;
}

static void new_session(struct host *h) {
    char request[256];
    acp_event *result;
    unsigned long id = 0;
    const char *sid;
    sprintf(request, "{\"cwd\":\"%s\",\"mcpServers\":[]}", h->cwd);
    REQUIRE(acp_client_new_session(&id, h->client, request, NULL, NULL) == 0);
    result = wait_result(h, id);
    REQUIRE(acp_event_status(result)->code == ACP_OK);
    sid = strstr(acp_event_json(result), "\"sessionId\":\"");
    REQUIRE(sid != NULL);
    sid += strlen("\"sessionId\":\"");
    memcpy(h->session_id, sid, (size_t)(strchr(sid, '"') - sid));
    acp_event_free(result);
}

/* Prompts and waits for the turn: with a v1 agent the result comes at the turn's end. */
static void prompt(struct host *h, const char *text) {
    unsigned long id = 0;
    REQUIRE(acp_client_prompt_text(&id, h->client, h->session_id, text, NULL, NULL) == 0);
    expect_ok(h, id);
}

/* The text of the session's last agent message. */
static char *last_agent_text(struct host *h) {
    acp_session *session = NULL;
    char *copy = NULL;
    int i;
    REQUIRE(acp_client_session(&session, h->client, h->session_id) == 0);
    CHECK(strcmp(acp_session_state(session), "idle") == 0);
    CHECK(acp_session_stop_reason(session) != NULL && strcmp(acp_session_stop_reason(session), "end_turn") == 0);
    for (i = acp_session_item_count(session) - 1; i >= 0 && copy == NULL; --i) {
        if (acp_session_item_kind(session, i) == ACP_ITEM_AGENT_MESSAGE) {
            const char *text = acp_session_item_text(session, i);
            copy = (char *)malloc(strlen(text) + 1);
            strcpy(copy, text);
        }
    }
    acp_session_free(session);
    REQUIRE(copy != NULL);
    return copy;
}

static void close_and_free(struct host *h) {
    CHECK(acp_client_close(h->client) == 0);
    while (!h->closed) {
        acp_event *event = NULL;
        if (acp_client_next_event(&event, h->client) != 0) {
            REQUIRE(acp_client_run_once(h->client, -1) >= 0);
            continue;
        }
        observe(h, event);
        acp_event_free(event);
    }
    acp_client_free(h->client);
}

int main(void) {
    struct host a, b, c;
    char *said;
    char *agent_json = NULL;
    unsigned long id = 0;
    acp_client *refused = NULL;
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;

    /* --- A: negotiated down from 2, every client method served by the host ---------- */
    memset(&a, 0, sizeof a);
    strcpy(a.cwd, "/tmp/acp-capi-v1-XXXXXX");
    REQUIRE(mkdtemp(a.cwd) != NULL);
    a.client = spawn_v1_agent(ACP_PROTOCOL_AUTO);
    CHECK(acp_client_serve_client_methods(a.client, 8) == ACP_EINVAL);
    REQUIRE(acp_client_serve_client_methods(a.client, ACP_CLIENT_METHOD_READ_TEXT_FILE) == 0);
    /* A second call adds to the first. */
    REQUIRE(acp_client_serve_client_methods(a.client, ACP_CLIENT_METHOD_WRITE_TEXT_FILE | ACP_CLIENT_METHOD_TERMINAL) ==
            0);
    CHECK(acp_client_negotiated_version(a.client) == 0); /* before initialize */
    REQUIRE(acp_client_initialize(&id, a.client, NULL, NULL) == 0);
    expect_ok(&a, id);
    /* CLIENT-MUST-20/23: asked for the highest version, 2; the agent answered 1, so the
     * connection goes on in v1 (a second initialize in v1 shape) and says so. */
    CHECK(acp_client_negotiated_version(a.client) == 1);
    CHECK(a.initialize_lines_out == 2);
    REQUIRE(acp_client_agent_json(&agent_json, a.client) == 0);
    CHECK(strstr(agent_json, "\"protocolVersion\":1") != NULL);
    acp_string_free(agent_json);
    /* The agent's own v1 answer, with the markers v2 has no place for. */
    REQUIRE(acp_client_agent_v1_json(&agent_json, a.client) == 0);
    CHECK(strstr(agent_json, "\"agentCapabilities\"") != NULL);
    CHECK(strstr(agent_json, "\"loadSession\":true") != NULL);
    acp_string_free(agent_json);
    new_session(&a);

    /* The v1 agent was told what the host serves, in v1's clientCapabilities. */
    prompt(&a, "caps");
    said = last_agent_text(&a);
    CHECK(strstr(said, "\"fs\":{\"readTextFile\":true,\"writeTextFile\":true}") != NULL);
    CHECK(strstr(said, "\"terminal\":true") != NULL);
    CHECK(strstr(said, "libacp-capi-v1-test") != NULL);
    if (failures != 0) fprintf(stderr, "  the agent said: %s\n", said);
    free(said);

    prompt(&a, "fs");
    CHECK(a.client_requests == 2);
    CHECK(strcmp(a.written, "olleh") == 0); /* the content the host served, reversed */
    said = last_agent_text(&a);
    CHECK(strcmp(said, "read 5 chars, wrote them reversed") == 0);
    free(said);

    prompt(&a, "term");
    CHECK(a.client_requests == 6); /* create, wait_for_exit, output, release */
    said = last_agent_text(&a);
    CHECK(strcmp(said, "terminal said \"hi\\n\", exit 0") == 0);
    if (strcmp(said, "terminal said \"hi\\n\", exit 0") != 0) fprintf(stderr, "  the agent said: %s\n", said);
    free(said);
    close_and_free(&a);

    /* --- B: ACP_PROTOCOL_V1 sends the v1 initialize first; nothing served, nothing advertised */
    memset(&b, 0, sizeof b);
    strcpy(b.cwd, a.cwd);
    b.client = spawn_v1_agent(ACP_PROTOCOL_V1);
    REQUIRE(acp_client_initialize(&id, b.client, NULL, NULL) == 0);
    expect_ok(&b, id);
    CHECK(acp_client_negotiated_version(b.client) == 1);
    CHECK(b.initialize_lines_out == 1);
    new_session(&b);
    prompt(&b, "caps");
    said = last_agent_text(&b);
    CHECK(strstr(said, "\"readTextFile\":true") == NULL);
    CHECK(strstr(said, "\"terminal\":true") == NULL);
    free(said);
    prompt(&b, "fs");
    said = last_agent_text(&b);
    CHECK(strcmp(said, "The client has no file system.") == 0);
    free(said);
    CHECK(b.client_requests == 0);
    close_and_free(&b);

    /* --- C: libacp serves fs itself, confined to the session's directories --------- */
    memset(&c, 0, sizeof c);
    strcpy(c.cwd, a.cwd);
    {
        char path[192];
        char content[16] = {0};
        char *confined = NULL;
        int rpc_code = 0;
        FILE *file;
        sprintf(path, "%s/in.txt", c.cwd);
        file = fopen(path, "w");
        REQUIRE(file != NULL);
        fputs("world", file);
        fclose(file);
        c.client = spawn_v1_agent(ACP_PROTOCOL_AUTO);
        CHECK(acp_client_serve_confined_files(c.client, ACP_CLIENT_METHOD_TERMINAL, 0) == ACP_EINVAL);
        REQUIRE(acp_client_serve_confined_files(
                    c.client, ACP_CLIENT_METHOD_READ_TEXT_FILE | ACP_CLIENT_METHOD_WRITE_TEXT_FILE, 0) == 0);
        REQUIRE(acp_client_initialize(&id, c.client, NULL, NULL) == 0);
        expect_ok(&c, id);
        new_session(&c);
        prompt(&c, "fs");
        CHECK(c.client_requests == 0); /* answered by libacp: no event */
        said = last_agent_text(&c);
        CHECK(strcmp(said, "read 5 chars, wrote them reversed") == 0);
        free(said);
        sprintf(path, "%s/out.txt", c.cwd);
        file = fopen(path, "r");
        REQUIRE(file != NULL);
        CHECK(fgets(content, sizeof content, file) != NULL && strcmp(content, "dlrow") == 0);
        fclose(file);

        /* The check alone, for a host that serves files itself. */
        sprintf(path, "%s/../elsewhere.txt", c.cwd);
        CHECK(acp_client_confine_path(&confined, &rpc_code, c.client, c.session_id, path, 1) == ACP_EINVAL);
        CHECK(rpc_code == -32602 && confined == NULL);
        CHECK(strstr(acp_error_last(), "outside") != NULL);
        CHECK(acp_client_confine_path(&confined, &rpc_code, c.client, "not-mine", "/tmp/x", 0) == ACP_ENOTFOUND);
        CHECK(rpc_code == -32002);
        CHECK(acp_client_confine_path(&confined, &rpc_code, c.client, c.session_id, "in.txt", 0) == ACP_EINVAL);
        sprintf(path, "%s/in.txt", c.cwd);
        REQUIRE(acp_client_confine_path(&confined, &rpc_code, c.client, c.session_id, path, 0) == 0);
        CHECK(rpc_code == 0 && strstr(confined, "/in.txt") != NULL);
        acp_string_free(confined);
        close_and_free(&c);
    }

    /* --- options: an unknown protocol version is refused; a version-1 struct (a host
     * built against an older acp.h) is read without its missing member. ----------- */
    {
        const char *argv[3];
        acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
        argv[0] = ACP_NODE;
        argv[1] = ACP_TS_AGENT_DIR "/agent-v1.mjs";
        argv[2] = NULL;
        agent.argv = argv;
        options.protocol_version = 7;
        CHECK(acp_client_spawn(&refused, &agent, &options) == ACP_EINVAL && refused == NULL);
        CHECK(strstr(acp_error_last(), "protocol_version") != NULL);
        options.version = 3;
        CHECK(acp_client_spawn(&refused, &agent, &options) == ACP_EINVAL);
        options.version = 1; /* protocol_version lies past a version-1 struct: ignored */
        REQUIRE(acp_client_spawn(&refused, &agent, &options) == 0);
        acp_client_free(refused);
    }

    {
        char command[192];
        sprintf(command, "rm -rf '%s'", a.cwd);
        CHECK(system(command) == 0);
    }
    if (failures == 0) printf("capi v1 test: ok\n");
    return failures == 0 ? 0 : 1;
}
