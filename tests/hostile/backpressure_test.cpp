// SPDX-License-Identifier: Apache-2.0
// Backpressure against an agent that floods requests and never reads the answers
// (tests/peers/hostile_agent flood-requests), and never against an honest agent the host
// sends a large prompt while another session streams (tests/peers/sync_agent), on the
// public API.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

#include "acp/client.hpp"
#include "acp/turn.hpp"
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
    std::string errors;

    explicit FloodHarness(
        std::chrono::milliseconds queued_output_timeout = acp::ClientOptions{}.queued_output_timeout) {
        acp::SpawnOptions agent;
        agent.argv = {ACP_HOSTILE_AGENT, "flood-requests", "--pid-file", pids.path};
        agent.shutdown_grace = std::chrono::milliseconds(200);
        agent.terminate_grace = std::chrono::milliseconds(200);
        acp::ClientOptions options;
        options.max_queued_output_bytes = kHighWater;
        options.resume_reading_below_bytes = kLowWater;
        options.queued_output_timeout = queued_output_timeout;
        options.log = [this](const acp::LogRecord& record) {
            std::string message(record.message);
            if (record.level == acp::LogLevel::error) errors += message + "\n";
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

TEST_CASE("backpressure: an agent that never reads its answers is given up on, with the reason in the closed status") {
    FloodHarness h(std::chrono::milliseconds(300));
    std::size_t largest_queue = 0;
    REQUIRE(h.loop.run_until(
        [&] {
            largest_queue = std::max(largest_queue, h.client->queued_output_bytes());
            return h.closed.has_value();
        },
        std::chrono::seconds(10)));
    // Memory stayed bounded all along: one pause, the queue within the mark plus one read.
    CHECK(h.pauses == 1);
    CHECK(largest_queue > kHighWater);
    CHECK(largest_queue <= kHighWater + kOneReadOfAnswers);
    // The closed status says what happened and which option decides it, and so does the log.
    CHECK(h.closed->code() == acp::Errc::connection_closed);
    const std::string why = h.closed->message();
    INFO(why);
    CHECK(why.find("the agent did not read its input") != std::string::npos);
    CHECK(why.find("ClientOptions::queued_output_timeout") != std::string::npos);
    CHECK(h.errors.find("the agent did not read its input") != std::string::npos);
    REQUIRE(h.closed->agent_exit() != nullptr);  // and the agent was stopped
    CHECK(h.client->queued_output_bytes() == 0);
}

namespace {

// A session streams a long turn from tests/peers/sync_agent (blocking writes, stdin read
// only between them) while the host sends another session a large prompt. The prompt is
// the host's own: however large, it must not stop reading from the agent, which can only
// take it in while its stream moves.
struct PromptWhileStreaming {
    static constexpr long kChunks = 400;
    static constexpr long kChunkBytes = 8 * 1024;  // a full pipe after a handful of chunks

    acp::test::TestLoop loop;
    std::unique_ptr<acp::Client> client;
    std::optional<acp::Status> closed;
    int pauses = 0;

    explicit PromptWhileStreaming(acp::ClientOptions options) {
        acp::SpawnOptions agent;
        agent.argv = {ACP_SYNC_AGENT};
        options.log = [this](const acp::LogRecord& record) {
            if (std::string(record.message).find("reading from the agent is paused") != std::string::npos) ++pauses;
        };
        auto spawned = acp::Client::spawn(loop.get(), agent, options);
        REQUIRE(spawned.ok());
        client = std::move(spawned.value());
        client->on_closed([this](const acp::Status& why) { closed = why; });
    }

    std::string new_session() {
        std::optional<acp::Result<acp::v2::NewSessionResponse>> created;
        acp::v2::NewSessionRequest request;
        request.cwd = "/tmp";
        client->new_session(request,
                            [&](acp::Result<acp::v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
        REQUIRE(loop.run_until([&] { return created.has_value(); }));
        REQUIRE(created->ok());
        return created->value().sessionId;
    }

    void run(std::size_t prompt_bytes) {
        std::optional<acp::Result<acp::v2::InitializeResponse>> initialized;
        client->initialize([&](acp::Result<acp::v2::InitializeResponse> r) { initialized.emplace(std::move(r)); });
        REQUIRE(loop.run_until([&] { return initialized.has_value(); }));
        REQUIRE(initialized->ok());
        const std::string streaming = new_session();
        const std::string prompted = new_session();

        std::optional<acp::Result<acp::TurnEnd>> stream_end;
        std::optional<acp::Result<acp::TurnEnd>> prompt_end;
        std::size_t streamed_bytes = 0;
        std::string answer;
        bool prompt_sent = false;
        acp::prompt_turn(
            *client, streaming, "stream " + std::to_string(kChunks) + " " + std::to_string(kChunkBytes),
            [&](const acp::TurnText& text) {
                streamed_bytes += text.text.size();
                if (prompt_sent) return;
                prompt_sent = true;  // the stream runs: now the large prompt
                acp::prompt_turn(
                    *client, prompted, std::string(prompt_bytes, 'p'),
                    [&](const acp::TurnText& reply) { answer.append(reply.text.data(), reply.text.size()); },
                    [&](acp::Result<acp::TurnEnd> end) { prompt_end.emplace(std::move(end)); });
            },
            [&](acp::Result<acp::TurnEnd> end) { stream_end.emplace(std::move(end)); });

        // Without the fix both sides wait on each other until the client is closed: the
        // guard ends the wait, not the test's clock.
        const bool both_ended = loop.run_until([&] { return stream_end && prompt_end; }, std::chrono::seconds(15));
        INFO("streamed " << streamed_bytes << " bytes; the prompt's answer: '" << answer << "'; "
                         << client->queued_output_bytes() << " bytes still queued for the agent");
        CHECK(pauses == 0);
        REQUIRE(both_ended);
        REQUIRE(prompt_end->ok());
        CHECK(prompt_end->value().ended_normally());
        CHECK(answer == "received " + std::to_string(prompt_bytes) + " bytes");  // the agent read all of it
        REQUIRE(stream_end->ok());
        CHECK(stream_end->value().ended_normally());
        CHECK(streamed_bytes == static_cast<std::size_t>(kChunks * kChunkBytes));

        client->close();
        REQUIRE(loop.run_until([&] { return closed.has_value(); }));
    }
};

}  // namespace

TEST_CASE("backpressure: a 5 MiB prompt completes while another session streams from a synchronous agent") {
    acp::ClientOptions options;
    options.max_queued_output_bytes = kHighWater;  // the prompt is 20 times the bound
    options.resume_reading_below_bytes = kLowWater;
    PromptWhileStreaming(options).run(5 * 1024 * 1024);
}

TEST_CASE("backpressure: an 8 MiB prompt completes while another session streams, with the default bound") {
    // Default options: the 4 MiB bound, and a message cap (max_line_bytes, 32 MiB) that
    // allows the prompt.
    PromptWhileStreaming(acp::ClientOptions{}).run(8 * 1024 * 1024);
}
