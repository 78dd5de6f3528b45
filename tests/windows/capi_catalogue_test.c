/* SPDX-License-Identifier: Apache-2.0 */
/* The C API from libacp.dll, with no agent process: the version, errors, the agent catalogue
 * (a registry given as JSON, a user agents file in a Windows folder, resolutions as JSON) and
 * the hosting calls' Windows answers (no loop or event descriptor: ACP_EUNSUPPORTED). */
#include <windows.h>

#include <stdio.h>
#include <string.h>

#include "../capi/check.h"

static const char *registry =
    "{\"agents\": [{\"id\": \"npx-agent\", \"name\": \"Npx Agent\", \"version\": \"1.0\","
    " \"distribution\": {\"npx\": {\"package\": \"npx-agent@1.0\", \"args\": [\"--acp\"]}}}]}";

int main(void) {
    char base[MAX_PATH + 1];
    char dir[MAX_PATH + 64];
    char path[MAX_PATH + 128];
    char *json = NULL;
    acp_catalogue *catalogue = NULL;
    FILE *file;

    CHECK(acp_version() != NULL && acp_version()[0] != '\0');

    REQUIRE(GetTempPathA(sizeof base, base) > 0);
    snprintf(dir, sizeof dir, "%sacp-capi-catalogue-%lu", base, (unsigned long)GetCurrentProcessId());
    REQUIRE(CreateDirectoryA(dir, NULL));
    snprintf(path, sizeof path, "%s\\agents.json", dir);
    file = fopen(path, "w");
    REQUIRE(file != NULL);
    fputs(
        "{\"default\": \"mine\", \"agents\": {\"mine\": {\"command\": \"C:\\\\Tools\\\\mine.exe\","
        " \"args\": [\"--acp\"], \"env\": {\"A\": \"1\"}, \"cwd\": \"C:\\\\work\"}}}",
        file);
    fclose(file);

    REQUIRE(acp_catalogue_new(&catalogue, registry, path) == ACP_OK);
    REQUIRE(acp_catalogue_list_json(&json, catalogue) == ACP_OK);
    CHECK(strstr(json, "\"default\":\"mine\"") != NULL);
    CHECK(strstr(json, "\"kinds\":[\"npx\"]") != NULL);
    acp_string_free(json);

    REQUIRE(acp_catalogue_resolve_json(&json, catalogue, "mine", 0) == ACP_OK);
    CHECK(strstr(json, "\"argv\":[\"C:\\\\Tools\\\\mine.exe\",\"--acp\"]") != NULL);
    CHECK(strstr(json, "\"cwd\":\"C:\\\\work\"") != NULL);
    acp_string_free(json);

    /* No npx on this PATH: the error says so. */
    REQUIRE(SetEnvironmentVariableA("PATH", dir));
    REQUIRE(_putenv_s("PATH", dir) == 0);
    CHECK(acp_catalogue_resolve_json(&json, catalogue, "npx-agent", 0) == ACP_EUNSUPPORTED);
    CHECK(json == NULL);
    CHECK(acp_catalogue_resolve_json(&json, catalogue, "nobody", 0) == ACP_EINVAL);
    acp_catalogue_free(catalogue);

    REQUIRE(acp_catalogue_new(&catalogue, NULL, "") == ACP_OK); /* the bundled snapshot */
    REQUIRE(acp_catalogue_list_json(&json, catalogue) == ACP_OK);
    CHECK(strstr(json, "\"id\":\"claude-acp\"") != NULL);
    acp_string_free(json);
    acp_catalogue_free(catalogue);

    DeleteFileA(path);
    RemoveDirectoryA(dir);
    return failures != 0;
}
