// SPDX-License-Identifier: Apache-2.0
// Runs an agent through libacp's process transport on a loop of its own and collects
// what it wrote to stdout and how the transport closed (the Windows transport tests).
#pragma once

#include <uv.h>

#include <memory>
#include <optional>
#include <string>

#include "transport/process_transport.hpp"

class AgentRun final : public acp::detail::TransportEvents {
public:
    AgentRun() { uv_loop_init(&loop_); }
    ~AgentRun() override {
        transport_.reset();
        // The supervisor finishes its ladder and closes its handles on the loop.
        uv_run(&loop_, UV_RUN_DEFAULT);
        uv_loop_close(&loop_);
    }

    acp::Status spawn(const acp::SpawnOptions& options) {
        auto transport = acp::detail::ProcessTransport::spawn(&loop_, options, acp::detail::Logger());
        if (!transport) return transport.status();
        transport_ = std::move(*transport);
        transport_->start(this);
        return acp::Status();
    }

    acp::detail::ProcessTransport& transport() { return *transport_; }

    // Runs the loop until the transport closed; the agent's output is then complete.
    acp::Status wait_closed() {
        while (!closed_) {
            if (uv_run(&loop_, UV_RUN_ONCE) == 0 && !closed_) {
                return acp::Status(acp::Errc::internal, "the loop ran out of work before the transport closed");
            }
        }
        return *closed_;
    }

    // One loop turn that does not wait: for tests that poll something else meanwhile.
    void run_once_nowait() { uv_run(&loop_, UV_RUN_NOWAIT); }

    const std::string& output() const { return output_; }

    void on_transport_data(char* data, std::size_t size) override { output_.append(data, size); }
    void on_transport_closed(const acp::Status& why) override { closed_ = why; }

private:
    uv_loop_t loop_{};
    std::unique_ptr<acp::detail::ProcessTransport> transport_;
    std::string output_;
    std::optional<acp::Status> closed_;
};
