// SPDX-License-Identifier: Apache-2.0
// acp.h must compile as C++ with -Wall -Wextra -pedantic -Werror (see CMakeLists.txt).
#include <acp/acp.h>

int acp_header_test_cxx();
int acp_header_test_cxx() {
    acp_client_options options = ACP_CLIENT_OPTIONS_INIT;
    acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;
    acp_install_options install = ACP_INSTALL_OPTIONS_INIT;
    acp_result_cb done = 0;
    return options.version == ACP_CLIENT_OPTIONS_VERSION && agent.version == ACP_SPAWN_OPTIONS_VERSION &&
           install.version == ACP_INSTALL_OPTIONS_VERSION && done == 0;
}
