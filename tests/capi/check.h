/* SPDX-License-Identifier: Apache-2.0 */
/* The checks the plain C hosts in tests/capi share: CHECK counts a failure and goes on,
 * REQUIRE stops the host, naming the C API's last error. A host returns failures != 0. */
#ifndef ACP_TESTS_CAPI_CHECK_H
#define ACP_TESTS_CAPI_CHECK_H

#include <acp/acp.h>

#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                              \
        }                                                                            \
    } while (0)

#define REQUIRE(cond)                                                                                  \
    do {                                                                                               \
        if (!(cond)) {                                                                                 \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
                    acp_error_last());                                                                 \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

#endif
