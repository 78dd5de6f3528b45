/* SPDX-License-Identifier: Apache-2.0 */
/* acp.h must compile as C89 with -Wall -Wextra -pedantic -Werror (see CMakeLists.txt). */
#include <acp/acp.h>

int acp_header_test_c(void);
int acp_header_test_c(void) {
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_tool_server_options tools = ACP_TOOL_SERVER_OPTIONS_INIT;
    acp_install_options install = ACP_INSTALL_OPTIONS_INIT;
    acp_status status;
    status.code = ACP_OK;
    return options.version == ACP_CLIENT_OPTIONS_VERSION && agent.version == ACP_SPAWN_OPTIONS_VERSION &&
           tools.version == ACP_TOOL_SERVER_OPTIONS_VERSION && install.version == ACP_INSTALL_OPTIONS_VERSION &&
           status.code == ACP_OK;
}
