/* SPDX-License-Identifier: Apache-2.0 */
/* Links the installed libacp.so through the C API and checks headers and library agree. */
#include <acp/acp.h>

#include <stdio.h>
#include <string.h>

int main(void) {
    acp_client *client = NULL;
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    /* Refused before anything starts: the argv is empty. */
    if (acp_client_spawn(&client, &agent, NULL) != ACP_EINVAL || strlen(acp_error_last()) == 0 ||
        strcmp(acp_error_name(ACP_ECLOSED), "ACP_ECLOSED") != 0) {
        puts("libacp C consumer: mismatch");
        return 1;
    }
    printf("libacp C consumer: linked libacp %s\n", acp_version());
    return 0;
}
