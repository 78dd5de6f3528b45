/* SPDX-License-Identifier: Apache-2.0 */
/* acp_catalogue_fetch: the registry fetched over https from 127.0.0.1 (its CA given as
 * ca_file), cached, resolved; http refused, falling back to the cache. Run under
 * tests/peers/registry_server.py, which serves it and sets ACP_TEST_* in the environment. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"

static const char *need(const char *name) {
    const char *value = getenv(name);
    if (value == NULL) {
        fprintf(stderr, "%s is not set: run this under tests/peers/registry_server.py\n", name);
        exit(1);
    }
    return value;
}

int main(void) {
    const char *scratch = need("ACP_TEST_SCRATCH");
    char cache[512], bin[512], npx[600];
    char *info = NULL, *json = NULL;
    acp_catalogue *catalogue = NULL;
    acp_registry_fetch_options options;
    FILE *file;
    struct stat st;

    snprintf(cache, sizeof cache, "%s/cache/registry.json", scratch);
    snprintf(bin, sizeof bin, "%s/bin", scratch);
    snprintf(npx, sizeof npx, "%s/npx", bin);
    REQUIRE(mkdir(bin, 0700) == 0);
    file = fopen(npx, "w"); /* resolving an npx distribution needs npx on the PATH */
    REQUIRE(file != NULL);
    fputs("#!/bin/sh\n", file);
    fclose(file);
    REQUIRE(chmod(npx, 0700) == 0);
    REQUIRE(setenv("PATH", bin, 1) == 0);

    CHECK(acp_registry_fetch_options_init(&options, 99) == ACP_EINVAL);
    REQUIRE(acp_registry_fetch_options_init(&options, ACP_REGISTRY_FETCH_OPTIONS_VERSION) == ACP_OK);
    CHECK(options.max_age_seconds == 86400);
    options.url = need("ACP_TEST_REGISTRY_URL");
    options.ca_file = need("ACP_TEST_CA_FILE");
    options.cache_file = cache;

    /* From the network, into the cache; its agent resolves. */
    REQUIRE(acp_catalogue_fetch(&catalogue, &info, &options, "") == ACP_OK);
    CHECK(strstr(info, "\"source\":\"network\"") != NULL);
    CHECK(strstr(info, "\"notes\":[]") != NULL);
    acp_string_free(info);
    CHECK(stat(cache, &st) == 0);
    REQUIRE(acp_catalogue_resolve_json(&json, catalogue, "fetched-agent", 0) == ACP_OK);
    CHECK(strstr(json, "\"argv\":[\"") != NULL);
    CHECK(strstr(json, "\"-y\",\"fetched-agent@2.0\",\"--acp\"]") != NULL);
    acp_string_free(json);
    acp_catalogue_free(catalogue);

    /* Plain http is refused, not fetched: the cache (any age with max age 0) instead. */
    options.url = need("ACP_TEST_REGISTRY_HTTP_URL");
    options.max_age_seconds = 0;
    REQUIRE(acp_catalogue_fetch(&catalogue, &info, &options, "") == ACP_OK);
    CHECK(strstr(info, "\"source\":\"cache\"") != NULL);
    CHECK(strstr(info, "the registry URL is not https") != NULL);
    acp_string_free(info);
    REQUIRE(acp_catalogue_resolve_json(&json, catalogue, "fetched-agent", 0) == ACP_OK);
    acp_string_free(json);
    acp_catalogue_free(catalogue);

    /* Without a cache either: the snapshot built into libacp, which has no fetched-agent. */
    snprintf(cache, sizeof cache, "%s/no-cache/registry.json", scratch);
    REQUIRE(acp_catalogue_fetch(&catalogue, &info, &options, "") == ACP_OK);
    CHECK(strstr(info, "\"source\":\"bundled\"") != NULL);
    acp_string_free(info);
    CHECK(acp_catalogue_resolve_json(&json, catalogue, "fetched-agent", 0) == ACP_EINVAL);
    acp_catalogue_free(catalogue);
    CHECK(stat(cache, &st) != 0); /* nothing fetched, nothing cached */

    options.max_age_seconds = -1;
    CHECK(acp_catalogue_fetch(&catalogue, NULL, &options, "") == ACP_EINVAL);
    CHECK(catalogue == NULL);
    return failures != 0;
}
