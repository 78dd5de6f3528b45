/* SPDX-License-Identifier: Apache-2.0 */
/* acp_client_hasten_close, a host's "stop the agent" pressed again, against an agent that
 * reads no stdin and ignores SIGTERM, with ten-minute graces no test waits out: only
 * hastening ends it. The first call closes (stdin), the second terminates (ignored), the
 * third kills the agent's tree, and ACP_EVENT_CLOSED says so. Exits 0 on success. */
#include <acp/acp.h>

#include <stdio.h>
#include <string.h>

#include "check.h"

static acp_client *client;
static char ending[512];

/* Runs the loop for about `ms` (the run_once waits add up), or until ACP_EVENT_CLOSED,
 * whose status message it keeps. 1 once closed. */
static int closed_within(int ms) {
    int waited;
    for (waited = 0; waited < ms; waited += 10) {
        acp_event *event = NULL;
        REQUIRE(acp_client_run_once(client, 10) >= 0);
        while (acp_client_next_event(&event, client) == 0) {
            int closed = acp_event_type(event) == ACP_EVENT_CLOSED;
            if (closed) snprintf(ending, sizeof ending, "%s", acp_event_status(event)->message);
            acp_event_free(event);
            if (closed) return 1;
        }
    }
    return 0;
}

int main(void) {
    const char *argv[] = {"sh", "-c", "trap '' TERM; exec sleep 600", NULL};
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;
    agent.argv = argv;
    agent.shutdown_grace_ms = 600000;
    agent.terminate_grace_ms = 600000;
    REQUIRE(acp_client_spawn(&client, &agent, &options) == 0);

    CHECK(acp_client_is_closed(client) == 0);
    CHECK(acp_client_hasten_close(client) == 0); /* not closing yet: acp_client_close() */
    CHECK(acp_client_is_closed(client) == 1);
    CHECK(!closed_within(200));
    CHECK(acp_client_hasten_close(client) == 0); /* SIGTERM: ignored */
    CHECK(!closed_within(200));
    CHECK(acp_client_hasten_close(client) == 0); /* SIGKILL to the tree */
    REQUIRE(closed_within(60000));
    CHECK(strstr(ending, "killed by signal 9") != NULL);
    CHECK(acp_client_hasten_close(client) == 0); /* after the end: nothing */
    CHECK(acp_client_hasten_close(NULL) == ACP_EINVAL);
    acp_client_free(client);
    if (failures != 0) fprintf(stderr, "the closed event said: %s\n", ending);
    if (failures == 0) printf("capi hasten_close test: ok\n");
    return failures == 0 ? 0 : 1;
}
