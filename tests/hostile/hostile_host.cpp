// SPDX-License-Identifier: Apache-2.0
// A host for the "no agent outlives its host" tests: spawns the hostile agent in
// setsid-children mode (or MODE) through the public API and runs its loop until it is
// killed. When the client reports its close, the host prints "closed: <why>" and flushes.
//
//   acp_hostile_host AGENT PID_FILE [MODE]
#include <uv.h>

#include <cstdio>

#include "acp/client.hpp"

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: acp_hostile_host AGENT PID_FILE [MODE]\n");
        return 2;
    }
    uv_loop_t* loop = uv_default_loop();
    acp::SpawnOptions agent;
    agent.argv = {argv[1], argc == 4 ? argv[3] : "setsid-children", "--pid-file", argv[2]};
    agent.terminate_grace = std::chrono::milliseconds(300);
    auto client = acp::Client::spawn(loop, agent);
    if (!client.ok()) {
        std::fprintf(stderr, "%s\n", client.status().to_string().c_str());
        return 1;
    }
    client.value()->on_closed([](const acp::Status& why) {
        std::printf("closed: %s\n", why.message().c_str());
        std::fflush(stdout);
    });
    return uv_run(loop, UV_RUN_DEFAULT);
}
