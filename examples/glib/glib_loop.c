/* SPDX-License-Identifier: Apache-2.0 */
/* One prompt with libacp driven from a GLib main loop (a GTK editor's loop is one): the
 * client runs in polled mode, and a GSource makes GLib wake it. The source watches
 * acp_client_fd() and asks GLib to come back after acp_client_timeout_ms(); its dispatch
 * calls acp_client_run_nowait(), inside which libacp calls the handlers below. Nothing
 * blocks: initialize, new session and prompt chain through their result callbacks, and
 * the end of the turn quits the main loop.
 *     glib-loop AGENT [ARGS...]      e.g. glib-loop acp-demo-agent */
#define _POSIX_C_SOURCE 200809L
#include <acp/acp.h>
#include <glib.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- the GSource that runs libacp's loop inside GLib's --------------------------------- */

typedef struct AcpSource {
    GSource source;
    acp_client *client;
    gpointer fd_tag;
    gint64 deadline; /* GLib's monotonic time (µs) at which libacp's timeout expires; -1: none */
} AcpSource;

/* Asked before GLib polls: ready at once when libacp has work posted (timeout 0, e.g.
 * after a call into the client), otherwise poll at most until libacp's next timer. */
static gboolean acp_source_prepare(GSource *source, gint *timeout) {
    AcpSource *self = (AcpSource *)source;
    int ms = acp_client_timeout_ms(self->client);
    *timeout = ms;
    self->deadline = ms < 0 ? -1 : g_source_get_time(source) + (gint64)ms * 1000;
    return ms == 0;
}

static gboolean acp_source_check(GSource *source) {
    AcpSource *self = (AcpSource *)source;
    if (g_source_query_unix_fd(source, self->fd_tag) & G_IO_IN) return TRUE;
    return self->deadline >= 0 && g_source_get_time(source) >= self->deadline;
}

static gboolean acp_source_dispatch(GSource *source, GSourceFunc callback, gpointer data) {
    AcpSource *self = (AcpSource *)source;
    (void)callback;
    (void)data;
    return acp_client_run_nowait(self->client) >= 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static GSourceFuncs acp_source_funcs = {acp_source_prepare, acp_source_check, acp_source_dispatch, NULL, NULL, NULL};

/* Attaches a source for a polled-mode client to the main context; destroy it before
 * freeing the client. */
static GSource *acp_source_new(acp_client *client) {
    GSource *source = g_source_new(&acp_source_funcs, sizeof(AcpSource));
    AcpSource *self = (AcpSource *)source;
    self->client = client;
    self->deadline = -1;
    self->fd_tag = g_source_add_unix_fd(source, acp_client_fd(client), G_IO_IN);
    g_source_set_name(source, "libacp");
    g_source_attach(source, NULL);
    return source;
}

/* ---- the conversation -------------------------------------------------------------------- */

static GMainLoop *main_loop;
static acp_client *client;
static int failed;
static char stop_reason[64];

static void fail_with(const char *what, const char *why) {
    fprintf(stderr, "error: %s: %s\n", what, why);
    failed = 1;
    g_main_loop_quit(main_loop);
}

static void on_permission(const acp_event *event, void *userdata) {
    acp_responder *responder;
    int i;
    (void)userdata;
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

static void on_session_changed(const acp_event *event, void *userdata) {
    size_t size;
    const char *text = acp_event_appended_text(event, &size);
    (void)userdata;
    if (text != NULL && acp_event_item_kind(event) == ACP_ITEM_AGENT_MESSAGE) {
        if (acp_event_change(event) == ACP_CHANGE_ITEM_INSERTED) putchar('\n');
        fwrite(text, 1, size, stdout);
        fflush(stdout);
    }
    if (acp_event_change(event) == ACP_CHANGE_TURN_ENDED) {
        g_strlcpy(stop_reason, acp_event_stop_reason(event) ? acp_event_stop_reason(event) : "?", sizeof stop_reason);
        g_main_loop_quit(main_loop);
    }
}

static void on_closed(const acp_event *event, void *userdata) {
    (void)userdata;
    fail_with("the agent went away", acp_event_status(event)->message);
}

static void on_prompted(const acp_event *result, void *userdata) {
    (void)userdata;
    /* The reply streams on; the turn's end arrives as ACP_CHANGE_TURN_ENDED. */
    if (acp_event_status(result)->code != ACP_OK) fail_with("prompt", acp_event_status(result)->message);
}

static void on_session(const acp_event *result, void *userdata) {
    (void)userdata;
    if (acp_event_status(result)->code != ACP_OK)
        fail_with("new session", acp_event_status(result)->message);
    else if (acp_client_prompt_text(NULL, client, acp_event_session_id(result), "Hello!", on_prompted, NULL) < 0)
        fail_with("prompt", acp_error_last());
}

static void on_initialized(const acp_event *result, void *userdata) {
    char cwd[4096];
    (void)userdata;
    if (acp_event_status(result)->code != ACP_OK)
        fail_with("initialize", acp_event_status(result)->message);
    else if (getcwd(cwd, sizeof cwd) == NULL)
        fail_with("getcwd", "no working directory");
    else if (acp_client_new_session_cwd(NULL, client, cwd, on_session, NULL) < 0)
        fail_with("new session", acp_error_last());
}

int main(int argc, char **argv) {
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;
    GSource *source;
    if (argc < 2) return fprintf(stderr, "usage: glib-loop AGENT [ARGS...]\n"), 2;
    agent.argv = (const char *const *)(argv + 1);
    options.queue_events = 0; /* every event this host wants has a handler; drop the rest */
    if (acp_client_spawn(&client, &agent, &options) < 0)
        return fprintf(stderr, "error: spawn: %s\n", acp_error_last()), 1;
    /* Follow the session model only: streamed text coalesces, no update is re-encoded. */
    acp_client_report_updates(client, 0);
    acp_client_observe_sessions(client, 1);
    acp_client_set_handler(client, ACP_EVENT_PERMISSION_REQUEST, on_permission, NULL, NULL);
    acp_client_set_handler(client, ACP_EVENT_SESSION_CHANGED, on_session_changed, NULL, NULL);
    acp_client_set_handler(client, ACP_EVENT_CLOSED, on_closed, NULL, NULL);

    main_loop = g_main_loop_new(NULL, FALSE);
    source = acp_source_new(client);
    if (acp_client_initialize(NULL, client, on_initialized, NULL) < 0) {
        fprintf(stderr, "error: initialize: %s\n", acp_error_last());
        failed = 1;
    } else {
        g_main_loop_run(main_loop);
    }

    /* The end of the connection that acp_client_free brings is this host's own doing. */
    acp_client_set_handler(client, ACP_EVENT_CLOSED, NULL, NULL, NULL);
    g_source_destroy(source);
    g_source_unref(source);
    g_main_loop_unref(main_loop);
    acp_client_free(client);
    if (failed) return 1;
    printf("\n[turn ended: %s]\n", stop_reason);
    return strcmp(stop_reason, "end_turn") == 0 ? 0 : 1;
}
