/* SPDX-License-Identifier: Apache-2.0 */
/* A plain C host against a JavaScript agent that cuts strings between the halves of a
 * surrogate pair (the TypeScript-SDK peer's "split-surrogates" turn): every string the C
 * API hands out (update JSON, event text, item texts, ids and titles, the session's
 * title and JSON) is valid UTF-8, and the emoji split across two chunks is whole. */
#include <acp/acp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Strict UTF-8: no surrogates, no overlongs, nothing past U+10FFFF; NULL counts as valid. */
static int valid_utf8(const char *text) {
    const unsigned char *p = (const unsigned char *)text;
    if (text == NULL) return 1;
    while (*p != 0) {
        unsigned long code;
        int length, k;
        if (*p < 0x80) {
            ++p;
            continue;
        }
        if (*p >= 0xC2 && *p <= 0xDF) {
            length = 2;
            code = *p & 0x1Fu;
        } else if (*p >= 0xE0 && *p <= 0xEF) {
            length = 3;
            code = *p & 0x0Fu;
        } else if (*p >= 0xF0 && *p <= 0xF4) {
            length = 4;
            code = *p & 0x07u;
        } else {
            return 0;
        }
        for (k = 1; k < length; ++k) {
            if ((p[k] & 0xC0u) != 0x80u) return 0;
            code = (code << 6) | (p[k] & 0x3Fu);
        }
        if ((length == 3 && code < 0x800) || (length == 4 && (code < 0x10000 || code > 0x10FFFF))) return 0;
        if (code >= 0xD800 && code <= 0xDFFF) return 0;
        p += length;
    }
    return 1;
}

static int idle_updates = 0;

static acp_event *next_event(acp_client *client) {
    acp_event *event = NULL;
    while (acp_client_next_event(&event, client) != 0) REQUIRE(acp_client_run_once(client, -1) >= 0);
    CHECK(valid_utf8(acp_event_json(event)));
    CHECK(valid_utf8(acp_event_text(event)));
    CHECK(valid_utf8(acp_event_item_id(event)));
    if (acp_event_type(event) == ACP_EVENT_SESSION_UPDATE &&
        strstr(acp_event_json(event), "\"state\":\"idle\"") != NULL) {
        ++idle_updates;
    }
    return event;
}

static acp_event *wait_result(acp_client *client, unsigned long request) {
    for (;;) {
        acp_event *event = next_event(client);
        if (acp_event_type(event) == ACP_EVENT_RESULT && acp_event_request(event) == request) return event;
        acp_event_free(event);
    }
}

int main(void) {
    const char *argv[3];
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;
    acp_client *client = NULL;
    acp_session *session = NULL;
    acp_event *result;
    unsigned long id = 0;
    int i, saw_smile = 0;

    argv[0] = ACP_NODE;
    argv[1] = ACP_TS_AGENT_DIR "/agent.mjs";
    argv[2] = NULL;
    agent.argv = argv;
    options.mode = ACP_MODE_POLLED;
    REQUIRE(acp_client_spawn(&client, &agent, &options) == 0);
    REQUIRE(acp_client_observe_sessions(client, 1) == 0);
    REQUIRE(acp_client_report_updates(client, 1) == 0); /* both: changes and updates */

    REQUIRE(acp_client_initialize(&id, client, NULL, NULL) == 0);
    result = wait_result(client, id);
    REQUIRE(acp_event_status(result)->code == ACP_OK);
    acp_event_free(result);
    REQUIRE(acp_client_new_session(&id, client, "{\"cwd\":\"/tmp\",\"mcpServers\":[]}", NULL, NULL) == 0);
    result = wait_result(client, id);
    REQUIRE(acp_event_status(result)->code == ACP_OK);
    REQUIRE(strstr(acp_event_json(result), "\"sess-1\"") != NULL);
    acp_event_free(result);

    REQUIRE(acp_client_prompt_text(&id, client, "sess-1", "split-surrogates", NULL, NULL) == 0);
    result = wait_result(client, id);
    CHECK(acp_event_status(result)->code == ACP_OK);
    acp_event_free(result);
    while (idle_updates < 1) acp_event_free(next_event(client));

    REQUIRE(acp_client_session(&session, client, "sess-1") == 0);
    CHECK(valid_utf8(acp_session_json(session)));
    CHECK(valid_utf8(acp_session_title(session)));
    CHECK(acp_session_title(session) != NULL &&
          strcmp(acp_session_title(session), "\xEF\xBF\xBDtitle\xEF\xBF\xBD") == 0);
    for (i = 0; i < acp_session_item_count(session); ++i) {
        const char *text = acp_session_item_text(session, i);
        CHECK(valid_utf8(text));
        CHECK(valid_utf8(acp_session_item_id(session, i)));
        CHECK(valid_utf8(acp_session_item_title(session, i)));
        if (text != NULL && strcmp(acp_session_item_id(session, i), "m1") == 0) {
            saw_smile = strcmp(text, "Smile \xF0\x9F\x98\x80 done") == 0;
        }
    }
    CHECK(saw_smile);
    acp_session_free(session);
    acp_client_free(client);
    if (failures != 0) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures == 0 ? 0 : 1;
}
