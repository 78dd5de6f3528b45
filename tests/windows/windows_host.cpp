// SPDX-License-Identifier: Apache-2.0
// A host for the containment test (containment_test.cpp): starts the stubborn agent
// (acp_windows_child) through libacp's process transport, lets it start its grandchild,
// prints "<agent pid> <grandchild pid>" and then runs its loop until it is killed.
//
//   acp_windows_host <path of acp_windows_child.exe>
#include <uv.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "transport/process_transport.hpp"

namespace {

class Events final : public acp::detail::TransportEvents {
public:
    explicit Events(int agent_pid) : agent_pid_(agent_pid) {}

    void on_transport_data(char* data, std::size_t size) override {
        line_.append(data, size);
        if (reported_ || line_.find('\n') == std::string::npos) return;
        reported_ = true;
        std::printf("%d %lu\n", agent_pid_, std::strtoul(line_.c_str(), nullptr, 10));
        std::fflush(stdout);
    }
    void on_transport_closed(const acp::Status& why) override {
        std::fprintf(stderr, "the agent ended: %s\n", why.message().c_str());
        std::exit(3);
    }

private:
    int agent_pid_;
    std::string line_;
    bool reported_ = false;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    uv_loop_t* loop = uv_default_loop();
    acp::SpawnOptions options;
    options.argv = {argv[1]};
    auto transport = acp::detail::ProcessTransport::spawn(loop, options, acp::detail::Logger());
    if (!transport) {
        std::fprintf(stderr, "%s\n", transport.status().message().c_str());
        return 2;
    }
    Events events((*transport)->pid());
    (*transport)->start(&events);
    (*transport)->write("go\n", acp::detail::WriteCause::host);
    uv_run(loop, UV_RUN_DEFAULT);
    return 0;
}
