/* SPDX-License-Identifier: Apache-2.0 */
/* The agent catalogue through the C API: a registry given as JSON, a user agents file,
 * the list and resolutions as JSON, and the errors a host shows. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static const char *registry =
    "{\"agents\": [{\"id\": \"npx-agent\", \"name\": \"Npx\\u001b Agent\", \"version\": \"1.0\","
    " \"distribution\": {\"npx\": {\"package\": \"npx-agent@1.0\", \"args\": [\"--acp\"]}}}]}";

int main(void) {
    char dir[] = "/tmp/acp-capi-catalogue-XXXXXX";
    char path[256];
    char *json = NULL;
    acp_catalogue *catalogue = NULL;
    FILE *file;

    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/agents.json", dir);
    file = fopen(path, "w");
    REQUIRE(file != NULL);
    fputs(
        "{\"default\": \"mine\", \"agents\": {\"mine\": {\"command\": \"/opt/mine\", \"args\": [\"--acp\"],"
        " \"env\": {\"A\": \"1\"}, \"cwd\": \"/work\"}}}",
        file);
    fclose(file);

    REQUIRE(acp_catalogue_new(&catalogue, registry, path) == ACP_OK);
    REQUIRE(acp_catalogue_list_json(&json, catalogue) == ACP_OK);
    CHECK(strstr(json, "\"default\":\"mine\"") != NULL);
    CHECK(strstr(json, "\"name\":\"Npx  Agent\"") != NULL); /* the escape became a space */
    CHECK(strstr(json, "\"kinds\":[\"npx\"]") != NULL);
    acp_string_free(json);

    REQUIRE(acp_catalogue_resolve_json(&json, catalogue, "mine", 0) == ACP_OK);
    CHECK(strcmp(json,
                 "{\"id\":\"mine\",\"kind\":\"user\",\"argv\":[\"/opt/mine\",\"--acp\"],\"env\":{\"A\":\"1\"},"
                 "\"cwd\":\"/work\",\"needs_install\":false,\"install_dir\":\"\",\"notes\":[]}") == 0);
    acp_string_free(json);

    /* No npx on this PATH: the error says so. */
    REQUIRE(setenv("PATH", dir, 1) == 0);
    CHECK(acp_catalogue_resolve_json(&json, catalogue, "npx-agent", 0) == ACP_EUNSUPPORTED);
    CHECK(json == NULL);
    CHECK(strstr(acp_error_last(), "npx is not on the PATH") != NULL);
    CHECK(acp_catalogue_resolve_json(&json, catalogue, "nobody", 0) == ACP_EINVAL);
    acp_catalogue_free(catalogue);

    CHECK(acp_catalogue_new(&catalogue, "{\"agents\": 1}", "") == ACP_EINVAL);
    CHECK(catalogue == NULL);
    REQUIRE(acp_catalogue_new(&catalogue, NULL, "") == ACP_OK); /* the bundled snapshot */
    REQUIRE(acp_catalogue_list_json(&json, catalogue) == ACP_OK);
    CHECK(strstr(json, "\"id\":\"claude-acp\"") != NULL);
    acp_string_free(json);
    acp_catalogue_free(catalogue);

    unlink(path);
    rmdir(dir);
    return failures != 0;
}
