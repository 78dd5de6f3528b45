/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl and libwebsockets are loaded by the first acp_client_connect, not with libacp:
 * a host that only spawns local agents never maps them (nor the libraries they bring).
 * Run as its own process, so nothing earlier has connected. Exits 0 on success. */
#include <acp/acp.h>

#include <stdio.h>
#include <string.h>

#include "check.h"

/* Whether a mapping of this process names a file containing name. */
static int mapped(const char *name) {
    char line[4096];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    REQUIRE(maps != NULL);
    while (!found && fgets(line, sizeof line, maps) != NULL) found = strstr(line, name) != NULL;
    fclose(maps);
    return found;
}

int main(void) {
    acp_remote_options remote;
    acp_client *client = NULL;
    int rc;
    CHECK(mapped("libacp"));
    CHECK(!mapped("libcurl"));
    CHECK(!mapped("libwebsockets"));

    /* Refused before anything is loaded: the URL's scheme is checked first. */
    REQUIRE(acp_remote_options_init(&remote, ACP_REMOTE_OPTIONS_VERSION) == 0);
    remote.url = "ftp://127.0.0.1/acp";
    CHECK(acp_client_connect(&client, &remote, NULL) == ACP_EUNSUPPORTED);
    CHECK(!mapped("libcurl"));

    /* A real connect (nothing listens on the discard port: it fails later, on the loop)
     * loads both. */
    remote.url = "http://127.0.0.1:9/acp";
    rc = acp_client_connect(&client, &remote, NULL);
    CHECK(rc == 0);
    CHECK(mapped("libcurl"));
    CHECK(mapped("libwebsockets"));
    if (rc == 0) acp_client_free(client);
    return failures != 0;
}
