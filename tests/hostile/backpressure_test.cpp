// SPDX-License-Identifier: Apache-2.0
// Backpressure against an agent that floods requests and never reads the answers
// (tests/peers/hostile_agent flood-requests), on the public API.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <optional>
#include <string>

#include "acp/client.hpp"
#include "hostile/hostile_agent_util.hpp"
#include "support/test_loop.hpp"

namespace {

constexpr std::size_t kHighWater = 256 * 1024;
constexpr std::size_t kLowWater = 64 * 1024;
// One read from the agent (64 KiB of its requests) may add this many bytes of answers
// beyond the high-water mark before reading stops.
constexpr std::size_t kOneReadOfAnswers = 512 * 1024;

struct FloodHarness {
    acp::test::TestLoop loop;
    acp::test::PidFile pids;
    std::unique_ptr<acp::Client> client;
    std::optional<acp::Status> closed;
    int pauses = 0;
    int resumes = 0;

    FloodHarness() {
        acp::SpawnOptions agent;
        agent.argv = {ACP_HOSTILE_AGENT, "flood-requests", "--pid-file", pids.path};
        agent.shutdown_grace = std::chrono::milliseconds(200);
        agent.terminate_grace = std::chrono::milliseconds(200);
        acp::ClientOptions options;
        options.max_queued_output_bytes = kHighWater;
        options.resume_reading_below_bytes = kLowWater;
        options.log = [this](const acp::LogRecord& record) {
            std::string message(record.message);
            if (message.find("reading from the agent is paused") != std::string::npos) ++pauses;
            if (message.find("reading from the agent resumed") != std::string::npos) ++resumes;
        };
        auto spawned = acp::Client::spawn(loop.get(), agent, options);
        REQUIRE(spawned.ok());
        client = std::move(spawned.value());
        client->on_closed([this](const acp::Status& why) { closed = why; });
    }
};

}  // namespace

TEST_CASE("backpressure: an agent that floods requests and never reads makes the client stop reading") {
    FloodHarness h;
    std::size_t largest_queue = 0;
    auto watch = [&] {
        largest_queue = std::max(largest_queue, h.client->queued_output_bytes());
        // Without backpressure the queue passes any bound; stop waiting then.
        return h.pauses > 0 || largest_queue > 64 * kHighWater;
    };
    REQUIRE(h.loop.run_until(watch));
    CHECK(h.pauses == 1);
    CHECK(h.client->queued_output_bytes() > kHighWater);
    CHECK(h.client->queued_output_bytes() <= kHighWater + kOneReadOfAnswers);

    // The agent keeps writing; the client keeps not reading: nothing more is queued.
    const std::size_t queued_at_pause = h.client->queued_output_bytes();
    h.loop.run_for(std::chrono::milliseconds(300));
    CHECK(h.client->queued_output_bytes() == queued_at_pause);
    CHECK(h.pauses == 1);  // reported once per pause, not per message

    // A paused client still closes cleanly (the agent is stopped by the shutdown ladder).
    h.client->close();
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }));
    CHECK(h.closed->code() == acp::Errc::connection_closed);
    REQUIRE(h.closed->agent_exit() != nullptr);
    CHECK(h.closed->agent_exit()->requested);
    CHECK(h.client->queued_output_bytes() == 0);
}

TEST_CASE("backpressure: reading resumes once the agent takes its answers") {
    FloodHarness h;
    REQUIRE(h.loop.run_until([&] { return h.pauses > 0 && h.pids.pid_of("agent") != 0; }));
    CHECK(h.resumes == 0);
    ::kill(h.pids.pid_of("agent"), SIGUSR1);  // the agent starts reading its stdin
    REQUIRE(h.loop.run_until([&] { return h.resumes > 0; }));
    CHECK(h.client->queued_output_bytes() <= kHighWater + kOneReadOfAnswers);
    h.client->close();
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }));
}
