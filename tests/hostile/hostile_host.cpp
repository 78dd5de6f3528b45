// SPDX-License-Identifier: Apache-2.0
// A host for the "no agent outlives its host" tests: spawns the hostile agent in
// setsid-children mode through the public API and runs its loop until it is killed.
//
//   acp_hostile_host AGENT PID_FILE
#include <uv.h>

#include <cstdio>

#include "acp/client.hpp"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: acp_hostile_host AGENT PID_FILE\n");
        return 2;
    }
    uv_loop_t* loop = uv_default_loop();
    acp::SpawnOptions agent;
    agent.argv = {argv[1], "setsid-children", "--pid-file", argv[2]};
    agent.terminate_grace = std::chrono::milliseconds(300);
    auto client = acp::Client::spawn(loop, agent);
    if (!client.ok()) {
        std::fprintf(stderr, "%s\n", client.status().to_string().c_str());
        return 1;
    }
    return uv_run(loop, UV_RUN_DEFAULT);
}
