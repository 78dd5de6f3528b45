/* SPDX-License-Identifier: Apache-2.0 */
/* One prompt with libacp's C API (acp/acp.h): spawn an agent, open a session, send a
 * prompt, print the reply as it streams, allow what the agent asks permission for, wait
 * for the end of the turn. Events are pulled from libacp's queue; nothing parses JSON.
 *     prompt-c AGENT [ARGS...]      e.g. prompt-c acp-demo-agent */
#define _POSIX_C_SOURCE 200809L
#include <acp/acp.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static acp_client *client;
static unsigned long waiting_for; /* the request whose result the host waits for */
static int result_code = 1;       /* its outcome, once it came */
static char session_id[256];
static char stop_reason[64]; /* set when the turn ended */

static int fail(const char *what) {
    fprintf(stderr, "error: %s: %s\n", what, acp_error_last());
    if (client != NULL) acp_client_free(client);
    return 1;
}

static void answer_permission(const acp_event *event) {
    acp_responder *responder;
    int i;
    if (acp_event_take_responder(&responder, event) != 0) return;
    for (i = 0; i < acp_event_option_count(event); ++i) {
        if (strcmp(acp_event_option_kind(event, i), "allow_once") == 0) {
            printf("\n[%s]\n", acp_event_option_name(event, i));
            acp_responder_select(responder, acp_event_option_id(event, i));
            break;
        }
    }
    acp_responder_free(responder); /* unanswered: "cancelled", never an approval */
}

static void handle(const acp_event *event) {
    size_t size;
    const char *text;
    switch (acp_event_type(event)) {
        case ACP_EVENT_RESULT:
            if (acp_event_request(event) != waiting_for) break;
            result_code = acp_event_status(event)->code;
            if (result_code != ACP_OK) fprintf(stderr, "error: %s\n", acp_event_status(event)->message);
            if (acp_event_session_id(event) != NULL && session_id[0] == '\0')
                strncpy(session_id, acp_event_session_id(event), sizeof session_id - 1);
            waiting_for = 0;
            break;
        case ACP_EVENT_PERMISSION_REQUEST: answer_permission(event); break;
        case ACP_EVENT_SESSION_CHANGED:
            text = acp_event_appended_text(event, &size);
            if (text != NULL && acp_event_item_kind(event) == ACP_ITEM_AGENT_MESSAGE) {
                if (acp_event_change(event) == ACP_CHANGE_ITEM_INSERTED) putchar('\n');
                fwrite(text, 1, size, stdout);
                fflush(stdout);
            }
            if (acp_event_change(event) == ACP_CHANGE_TURN_ENDED)
                strncpy(stop_reason, acp_event_stop_reason(event) ? acp_event_stop_reason(event) : "?",
                        sizeof stop_reason - 1);
            break;
        case ACP_EVENT_CLOSED:
            fprintf(stderr, "error: the agent went away: %s\n", acp_event_status(event)->message);
            waiting_for = 0;
            stop_reason[0] = '!';
            break;
    }
}

/* Runs the loop and handles events until the awaited result came (or the turn ended). */
static int wait_until(int for_turn_end) {
    acp_event *event;
    while (for_turn_end ? stop_reason[0] == '\0' : waiting_for != 0) {
        if (acp_client_next_event(&event, client) == 0) {
            handle(event);
            acp_event_free(event);
        } else if (acp_client_run_once(client, -1) <= 0) {
            return -1;
        }
    }
    return for_turn_end ? 0 : result_code;
}

int main(int argc, char **argv) {
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    char cwd[4096];
    if (argc < 2) return fprintf(stderr, "usage: prompt-c AGENT [ARGS...]\n"), 2;
    agent.argv = (const char *const *)(argv + 1);
    if (acp_client_spawn(&client, &agent, NULL) < 0) return fail("spawn");
    acp_client_observe_sessions(client, 1);

    if (acp_client_initialize(&waiting_for, client, NULL, NULL) < 0 || wait_until(0) != 0) return fail("initialize");
    if (getcwd(cwd, sizeof cwd) == NULL) return fail("getcwd");
    if (acp_client_new_session_cwd(&waiting_for, client, cwd, NULL, NULL) < 0 || wait_until(0) != 0)
        return fail("new session");
    if (acp_client_prompt_text(&waiting_for, client, session_id, "Hello!", NULL, NULL) < 0 || wait_until(0) != 0 ||
        wait_until(1) != 0 || stop_reason[0] == '!')
        return fail("prompt");

    printf("\n[turn ended: %s]\n", stop_reason);
    acp_client_free(client);
    return strcmp(stop_reason, "end_turn") == 0 ? 0 : 1;
}
