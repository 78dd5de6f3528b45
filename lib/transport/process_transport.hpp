// SPDX-License-Identifier: Apache-2.0
// A transport to an agent process that libacp spawns and supervises.
//
// The agent runs from an argv vector (never a shell), with the environment SpawnOptions
// describes, contained by the platform (platform/agent_process.hpp) unless
// SpawnOptions::use_guard_process is false: on Linux under the agent guard, which relays
// the ladder's signals to the agent's process group, reports the agent's exit as its own,
// and stops every descendant when the agent exits, the ladder ends, or the host dies. Its
// stderr is drained continuously into the log sink; its exit is reported with the code or
// signal and the tail of its stderr. Shutdown follows a ladder (close stdin, then
// AgentProcess::terminate(), then AgentProcess::kill_tree()), and whatever is left of the
// tree after the agent exits (grandchildren) is stopped too.
//
// The supervisor outlives this object when needed: destroying a ProcessTransport with
// the agent still running starts the ladder, which finishes on the loop by itself.
#pragma once

#include <uv.h>

#include <memory>

#include "acp/status.hpp"
#include "acp/transport_options.hpp"
#include "support/logger.hpp"
#include "transport/transport.hpp"

namespace acp::detail {

class ProcessTransport final : public Transport {
public:
    static Result<std::unique_ptr<ProcessTransport>> spawn(uv_loop_t* loop, const SpawnOptions& options, Logger logger);
    ~ProcessTransport() override;

    void start(TransportEvents* events) override;
    void write(std::string_view bytes, WriteCause cause) override;
    void close() override;
    void hasten_close() override;
    void detach() override;
    void set_write_limits(WriteLimits limits) override;
    std::size_t queued_bytes() const override;
    void hold_reading(bool held) override;

    // The process libacp spawned: the guard (signals sent to it reach the agent's process
    // group), or the agent itself without the guard.
    int pid() const;

    class Supervisor;

private:
    explicit ProcessTransport(std::shared_ptr<Supervisor> supervisor);
    std::shared_ptr<Supervisor> supervisor_;
};

}  // namespace acp::detail
