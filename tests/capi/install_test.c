/* SPDX-License-Identifier: Apache-2.0 */
/* acp_catalogue_install: a binary build served over https from 127.0.0.1 (its CA given as
 * ca_file) installs into the cache and its agent (a test peer packed by this test) runs
 * through acp_client_spawn; the system CAs alone, a wrong sha256 and an http:// archive are
 * refused with nothing left in the cache. Version 2 of the options: a cache folder of the
 * host's own, another platform, the PATH to look npx up on, and ACP_RESOLVE_NO_INSTALL
 * (a version 1 struct is still read as far as it goes). Run under tests/peers/registry_server.py, which
 * serves ACP_TEST_ARCHIVES and sets ACP_TEST_* in the environment. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "check.h"

static const char *need(const char *name) {
    const char *value = getenv(name);
    if (value == NULL) {
        fprintf(stderr, "%s is not set: run this under tests/peers/registry_server.py\n", name);
        exit(1);
    }
    return value;
}

/* acp_install_options as a host built against version 1 declares it. */
struct install_options_v1 {
    unsigned int version;
    const char *ca_file;
    size_t max_download_bytes;
    size_t max_unpacked_bytes;
    unsigned long connect_timeout_ms;
};

/* Entries in a folder; 0 when it does not exist. */
static int entries(const char *path) {
    int count = 0;
    struct dirent *e;
    DIR *d = opendir(path);
    if (d == NULL) return 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) ++count;
    }
    closedir(d);
    return count;
}

static void run(const char *command) {
    if (system(command) != 0) {
        fprintf(stderr, "failed: %s\n", command);
        exit(1);
    }
}

/* The installed agent answers initialize through libacp. */
static void check_agent_runs(const char *path) {
    const char *argv[2];
    acp_spawn_options agent;
    acp_client *client = NULL;
    acp_event *event = NULL;
    unsigned long id = 0;
    int answered = 0;
    REQUIRE(acp_spawn_options_init(&agent, ACP_SPAWN_OPTIONS_VERSION) == ACP_OK);
    argv[0] = path;
    argv[1] = NULL;
    agent.argv = argv;
    REQUIRE(acp_client_spawn(&client, &agent, NULL) == ACP_OK);
    REQUIRE(acp_client_initialize(&id, client, NULL, NULL) == ACP_OK);
    while (!answered) {
        while (acp_client_next_event(&event, client) != 0) REQUIRE(acp_client_run_once(client, -1) >= 0);
        if (acp_event_type(event) == ACP_EVENT_RESULT && acp_event_request(event) == id) {
            CHECK(acp_event_status(event)->code == ACP_OK);
            answered = 1;
        }
        acp_event_free(event);
    }
    acp_client_free(client);
}

int main(void) {
    const char *scratch = need("ACP_TEST_SCRATCH");
    const char *archives = need("ACP_TEST_ARCHIVES");
    const char *url = need("ACP_TEST_ARCHIVE_URL");
    char xdg[512], command[2048], digest[65] = "", target[96], registry[4096], expected[2048], folder[768];
    char own[600], tools[600];
    char *json = NULL;
    acp_catalogue *catalogue = NULL;
    acp_install_options options;
    struct install_options_v1 *old_options;
    struct utsname machine;
    FILE *pipe;

    /* The cache goes to the scratch folder ($XDG_CACHE_HOME/acp/agents). */
    snprintf(xdg, sizeof xdg, "%s/xdg-cache", scratch);
    REQUIRE(setenv("XDG_CACHE_HOME", xdg, 1) == 0);
    REQUIRE(uname(&machine) == 0);
    snprintf(target, sizeof target, "linux-%s", machine.machine);

    /* The archive: the test peer as bin/agent in a tar.gz, and its digest. */
    snprintf(command, sizeof command,
             "mkdir -p '%s/pkg/bin' && cp '%s' '%s/pkg/bin/agent' && tar -czf '%s/agent.tar.gz' -C '%s/pkg' bin",
             scratch, ACP_TEST_AGENT, scratch, archives, scratch);
    run(command);
    snprintf(command, sizeof command, "sha256sum '%s/agent.tar.gz'", archives);
    pipe = popen(command, "r");
    REQUIRE(pipe != NULL);
    REQUIRE(fscanf(pipe, "%64s", digest) == 1);
    pclose(pipe);
    REQUIRE(strlen(digest) == 64);

    snprintf(registry, sizeof registry,
             "{\"agents\": ["
             "{\"id\": \"peer\", \"version\": \"1.0\", \"distribution\": {\"binary\": {\"%s\": "
             "{\"archive\": \"%sagent.tar.gz\", \"sha256\": \"%s\", \"cmd\": \"./bin/agent\"}}}},"
             "{\"id\": \"bad-digest\", \"version\": \"1.0\", \"distribution\": {\"binary\": {\"%s\": "
             "{\"archive\": \"%sagent.tar.gz\", \"sha256\": \"%064d\", \"cmd\": \"./bin/agent\"}}}},"
             "{\"id\": \"plain-http\", \"version\": \"1.0\", \"distribution\": {\"binary\": {\"%s\": "
             "{\"archive\": \"http%sagent.tar.gz\", \"cmd\": \"./bin/agent\"}}}},"
             "{\"id\": \"from-npm\", \"version\": \"1.0\", \"distribution\": {\"npx\": {\"package\": "
             "\"@acme/agent@1.0\"}}}]}",
             target, url, digest, target, url, 0, target, url + strlen("https"));
    REQUIRE(acp_catalogue_new(&catalogue, registry, "") == ACP_OK);

    /* http:// is refused where the registry is read: the entry is left out, named. */
    REQUIRE(acp_catalogue_list_json(&json, catalogue) == ACP_OK);
    CHECK(strstr(json, "plain-http") != NULL && strstr(json, "https") != NULL);
    acp_string_free(json);
    CHECK(acp_catalogue_install(&json, catalogue, "plain-http", 0, NULL) == ACP_EINVAL);
    CHECK(json == NULL);

    /* Before the install: a resolution that needs it. */
    REQUIRE(acp_catalogue_resolve_json(&json, catalogue, "peer", 0) == ACP_OK);
    CHECK(strstr(json, "\"needs_install\":true") != NULL);
    acp_string_free(json);

    CHECK(acp_install_options_init(&options, 99) == ACP_EINVAL);
    CHECK(acp_install_options_init(NULL, ACP_INSTALL_OPTIONS_VERSION) == ACP_EINVAL);
    REQUIRE(acp_install_options_init(&options, ACP_INSTALL_OPTIONS_VERSION) == ACP_OK);
    CHECK(options.ca_file == NULL && options.max_download_bytes == 0);

    /* The system's CAs do not know the test CA: a failed download, nothing in the cache. */
    snprintf(folder, sizeof folder, "%s/acp/agents/peer/1.0", xdg);
    CHECK(acp_catalogue_install(&json, catalogue, "peer", 0, &options) == ACP_EIO);
    CHECK(json == NULL);
    CHECK(entries(folder) == 0);

    /* A wrong sha256 is refused, and nothing stays in the cache. */
    options.ca_file = need("ACP_TEST_CA_FILE");
    CHECK(acp_catalogue_install(&json, catalogue, "bad-digest", 0, &options) == ACP_EINVAL);
    CHECK(strstr(acp_error_last(), "the registry says 0000") != NULL);
    snprintf(command, sizeof command, "%s/acp/agents/bad-digest/1.0", xdg);
    CHECK(entries(command) == 0);

    /* With the test CA: installed, and the answer starts the agent. */
    REQUIRE(acp_catalogue_install(&json, catalogue, "peer", 0, &options) == ACP_OK);
    snprintf(expected, sizeof expected, "\"argv\":[\"%s/%s/bin/agent\"]", folder, target);
    CHECK(strstr(json, expected) != NULL);
    CHECK(strstr(json, "\"kind\":\"binary\"") != NULL);
    CHECK(strstr(json, "\"needs_install\":false") != NULL);
    acp_string_free(json);
    CHECK(entries(folder) == 1); /* the platform's folder, no scratch left beside it */
    snprintf(expected, sizeof expected, "%s/%s/bin/agent", folder, target);
    check_agent_runs(expected);

    /* Installed: resolve finds it, install answers without downloading again. */
    REQUIRE(acp_catalogue_resolve_json(&json, catalogue, "peer", 0) == ACP_OK);
    CHECK(strstr(json, "\"needs_install\":false") != NULL);
    acp_string_free(json);
    options.ca_file = NULL;
    REQUIRE(acp_catalogue_install(&json, catalogue, "peer", 0, &options) == ACP_OK);
    acp_string_free(json);

    /* Version 2: the host's own cache folder. ACP_RESOLVE_NO_INSTALL resolves there and
     * downloads nothing; the install goes there and runs from there. */
    snprintf(own, sizeof own, "%s/editor-agents", scratch);
    options.cache_dir = own;
    options.ca_file = need("ACP_TEST_CA_FILE");
    REQUIRE(acp_catalogue_install(&json, catalogue, "peer", ACP_RESOLVE_NO_INSTALL, &options) == ACP_OK);
    CHECK(strstr(json, "\"needs_install\":true") != NULL);
    acp_string_free(json);
    CHECK(entries(own) == 0);
    REQUIRE(acp_catalogue_install(&json, catalogue, "peer", 0, &options) == ACP_OK);
    snprintf(expected, sizeof expected, "\"argv\":[\"%s/peer/1.0/%s/bin/agent\"]", own, target);
    CHECK(strstr(json, expected) != NULL);
    acp_string_free(json);
    snprintf(expected, sizeof expected, "%s/peer/1.0/%s/bin/agent", own, target);
    check_agent_runs(expected);
    REQUIRE(acp_catalogue_install(&json, catalogue, "peer", ACP_RESOLVE_NO_INSTALL, &options) == ACP_OK);
    CHECK(strstr(json, "\"needs_install\":false") != NULL);
    acp_string_free(json);

    /* Another platform: the registry has no build for it. */
    options.platform = "windows-aarch64";
    CHECK(acp_catalogue_install(&json, catalogue, "peer", ACP_RESOLVE_NO_INSTALL, &options) == ACP_EUNSUPPORTED);
    CHECK(strstr(acp_error_last(), "windows-aarch64") != NULL);
    options.platform = NULL;

    /* The PATH npx is looked up on: a folder without it, then one with it. */
    snprintf(tools, sizeof tools, "%s/tools", scratch);
    snprintf(command, sizeof command, "mkdir -p '%s' && printf '#!/bin/sh\\n' >'%s/npx' && chmod +x '%s/npx'", tools,
             tools, tools);
    run(command);
    options.path = scratch;
    CHECK(acp_catalogue_install(&json, catalogue, "from-npm", ACP_RESOLVE_NO_INSTALL, &options) == ACP_EUNSUPPORTED);
    CHECK(strstr(acp_error_last(), "npx is not on the PATH") != NULL);
    options.path = tools;
    REQUIRE(acp_catalogue_install(&json, catalogue, "from-npm", ACP_RESOLVE_NO_INSTALL, &options) == ACP_OK);
    snprintf(expected, sizeof expected, "\"argv\":[\"%s/npx\",\"-y\",\"@acme/agent@1.0\"]", tools);
    CHECK(strstr(json, expected) != NULL);
    acp_string_free(json);

    /* A version 1 struct ends before cache_dir: what lies past it is never read, nor
     * written by its init (exactly that many bytes here: the sanitized run catches an
     * access past them). */
    REQUIRE(sizeof(struct install_options_v1) == offsetof(acp_install_options, cache_dir));
    old_options = (struct install_options_v1 *)malloc(sizeof(struct install_options_v1));
    REQUIRE(old_options != NULL);
    REQUIRE(acp_install_options_init((acp_install_options *)old_options, 1) == ACP_OK);
    CHECK(old_options->version == 1 && old_options->ca_file == NULL);
    REQUIRE(acp_catalogue_install(&json, catalogue, "peer", ACP_RESOLVE_NO_INSTALL,
                                  (const acp_install_options *)old_options) == ACP_OK);
    snprintf(expected, sizeof expected, "\"argv\":[\"%s/%s/bin/agent\"]", folder, target);
    CHECK(strstr(json, expected) != NULL);
    acp_string_free(json);
    free(old_options);
    /* A full struct saying version 1: its cache_dir is ignored. */
    REQUIRE(acp_install_options_init(&options, 1) == ACP_OK);
    options.cache_dir = "/nonexistent/never-read";
    REQUIRE(acp_catalogue_install(&json, catalogue, "peer", ACP_RESOLVE_NO_INSTALL, &options) == ACP_OK);
    CHECK(strstr(json, expected) != NULL);
    acp_string_free(json);

    options.version = 99;
    CHECK(acp_catalogue_install(&json, catalogue, "peer", 0, &options) == ACP_EINVAL);
    CHECK(acp_catalogue_install(NULL, catalogue, "peer", 0, NULL) == ACP_EINVAL);
    acp_catalogue_free(catalogue);
    return failures != 0;
}
