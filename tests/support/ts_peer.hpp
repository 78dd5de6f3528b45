// SPDX-License-Identifier: Apache-2.0
// The client against the peer agent built on the official TypeScript SDK
// (tests/peers/ts-agent): agent.mjs (v2), or agent-v1.mjs (the SDK's v1 entry point) with
// TsPeer::v1. Every message the client sends is recorded by the peer and, when the test
// ends, checked against the pinned schema of that version by validate.mjs (ajv).
#pragma once

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "acp/client.hpp"
#include "acp/client_v1.hpp"
#include "support/test_loop.hpp"

namespace acp::test {

class TsPeer {
public:
    struct V1 {};
    static constexpr V1 v1{};

    explicit TsPeer(std::vector<std::string> flags = {}, ClientOptions options = {})
        : TsPeer("agent.mjs", ACP_V2_SCHEMA_PATH, std::move(flags), std::move(options)) {}
    TsPeer(V1, std::vector<std::string> flags = {}, ClientOptions options = {})
        : TsPeer("agent-v1.mjs", ACP_V1_SCHEMA_PATH, std::move(flags), std::move(options)) {}

    TsPeer(const std::string& script, std::string schema, std::vector<std::string> flags, ClientOptions options)
        : schema_(std::move(schema)), record_(make_record_file()) {
        SpawnOptions agent;
        agent.argv = {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/" + script, "--record=" + record_};
        for (auto& flag : flags) agent.argv.push_back(flag);
        agent.shutdown_grace = std::chrono::milliseconds(3000);
        auto created = Client::spawn(loop.get(), agent, with_test_log(std::move(options)));
        REQUIRE_MESSAGE(created.ok(), created.status().to_string());
        attach(std::move(created.value()));
    }

    // The same agent served over the network (tests/peers/ts-agent/server.mjs): the
    // server records the traffic into record_file, which this peer checks and removes.
    struct Remote {};
    static constexpr Remote remote{};
    TsPeer(Remote, const RemoteOptions& agent, std::string record_file, ClientOptions options = {})
        : schema_(ACP_V2_SCHEMA_PATH), record_(std::move(record_file)) {
        auto created = Client::connect(loop.get(), agent, with_test_log(std::move(options)));
        REQUIRE_MESSAGE(created.ok(), created.status().to_string());
        attach(std::move(created.value()));
    }

    static std::string make_record_file() {
        char path[] = "/tmp/acp-ts-peer-XXXXXX";
        int fd = mkstemp(path);
        REQUIRE(fd >= 0);
        close(fd);
        return path;
    }

    ~TsPeer() {
        client->close();
        loop.run_until([this] { return closed.has_value(); });
        client.reset();
        if (validate_on_exit) check_recorded_traffic();
        std::remove(record_.c_str());
    }

    template <class T, class Start>
    Result<T> wait(Start&& start) {
        std::optional<Result<T>> result;
        start([&result](Result<T> r) { result.emplace(std::move(r)); });
        loop.run_until([&result] { return result.has_value(); });
        REQUIRE(result.has_value());
        return std::move(*result);
    }

    Result<v2::InitializeResponse> initialize() {
        return wait<v2::InitializeResponse>([&](auto done) { client->initialize(done); });
    }

    std::string new_session(const std::string& cwd = "/tmp") {
        v2::NewSessionRequest request;
        request.cwd = cwd;
        auto result = wait<v2::NewSessionResponse>([&](auto done) { client->new_session(request, done); });
        REQUIRE_MESSAGE(result.ok(), result.status().to_string());
        return result->sessionId;
    }

    static v2::PromptRequest text_prompt(const std::string& session_id, const std::string& text) {
        v2::PromptRequest request;
        request.sessionId = session_id;
        v2::TextContent content;
        content.text = text;
        request.prompt.push_back(v2::ContentBlock::make_text(std::move(content)));
        return request;
    }

    // Sends a prompt and runs until the agent acknowledged it (the turn goes on).
    Result<v2::PromptResponse> start_prompt(const std::string& session_id, const std::string& text) {
        return wait<v2::PromptResponse>([&](auto done) { client->prompt(text_prompt(session_id, text), done); });
    }

    // Sends a prompt and runs until the turn's idle state update arrived.
    Result<v2::PromptResponse> prompt_turn(const std::string& session_id, const std::string& text) {
        const std::size_t idle_before = idle_count();
        auto response = start_prompt(session_id, text);
        if (response) loop.run_until([&] { return idle_count() > idle_before; });
        return response;
    }

    std::size_t idle_count() const {
        std::size_t count = 0;
        for (const auto& n : updates) {
            if (const auto* state = n.update.state_update(); state != nullptr && state->idle() != nullptr) ++count;
        }
        return count;
    }

    // The last idle update's stop reason ("" when none).
    std::string last_stop_reason() const {
        for (auto it = updates.rbegin(); it != updates.rend(); ++it) {
            const auto* state = it->update.state_update();
            if (state == nullptr || state->idle() == nullptr) continue;
            const auto& reason = state->idle()->stopReason;
            return reason.has_value() ? reason->tag() : std::string();
        }
        return {};
    }

    // Concatenated text of the agent_message_chunk updates for a message id.
    std::string agent_text(const std::string& message_id) const {
        std::string text;
        for (const auto& n : updates) {
            const auto* chunk = n.update.agent_message_chunk();
            if (chunk != nullptr && chunk->messageId == message_id && chunk->content.text() != nullptr) {
                text += chunk->content.text()->text;
            }
        }
        return text;
    }

    // Every line the agent received from the client, as its recorder saw them: a line
    // that was not one JSON value is recorded as {"dir":"in","raw":...}.
    std::vector<std::string> received() const { return recorded(R"({"dir":"in")"); }
    // Every line the agent sent, as recorded ({"dir":"out","msg":...}).
    std::vector<std::string> agent_sent() const { return recorded(R"({"dir":"out")"); }

    std::vector<std::string> recorded(const std::string& prefix) const {
        std::vector<std::string> lines;
        std::FILE* file = std::fopen(record_.c_str(), "r");
        if (file == nullptr) return lines;
        std::string line;
        for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) {
            if (c != '\n') {
                line += static_cast<char>(c);
                continue;
            }
            if (line.rfind(prefix, 0) == 0) lines.push_back(line);
            line.clear();
        }
        std::fclose(file);
        return lines;
    }

    bool logged(const std::string& fragment) const {
        for (const auto& line : log) {
            if (line.find(fragment) != std::string::npos) return true;
        }
        return false;
    }

    TestLoop loop;
    std::unique_ptr<Client> client;
    std::vector<v2::UpdateSessionNotification> updates;
    std::vector<std::string> sent;
    std::vector<std::string> log;
    std::optional<Status> closed;
    bool validate_on_exit = true;

private:
    ClientOptions with_test_log(ClientOptions options) {
        options.info.name = "libacp-tests";
        options.info.version = "1.0";
        options.log = [this](const LogRecord& r) {
            log.push_back(std::string(log_level_name(r.level)) + " " + std::string(r.source) + ": " +
                          std::string(r.message));
        };
        return options;
    }

    void attach(std::unique_ptr<Client> created) {
        client = std::move(created);
        client->on_session_update([this](const v2::UpdateSessionNotification& n) { updates.push_back(n); });
        client->on_closed([this](const Status& why) { closed = why; });
        client->set_traffic_observer([this](Direction d, std::string_view line, auto) {
            if (d == Direction::outgoing) sent.emplace_back(line);
        });
    }

    // Every message the client sent must validate against the pinned schema.
    void check_recorded_traffic() {
        std::string command = std::string(ACP_NODE) + " " + ACP_TS_AGENT_DIR + "/validate.mjs --schema=" + schema_ +
                              " " + record_ + " 2>&1";
        // Runs from the destructor: CHECK only, a REQUIRE would throw out of it.
        FILE* pipe = popen(command.c_str(), "r");
        CHECK(pipe != nullptr);
        if (pipe == nullptr) return;
        std::string output;
        char buffer[4096];
        while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
        int status = pclose(pipe);
        INFO("validate.mjs: " << output);
        CHECK(status == 0);
        CHECK(output.find(", 0 invalid") != std::string::npos);
        // It really looked at the traffic: at least the initialize request.
        const auto checked = output.find("checked ");
        CHECK(checked != std::string::npos);
        if (checked != std::string::npos) CHECK(std::atoi(output.c_str() + checked + 8) > 0);
    }

    std::string schema_;
    std::string record_;
};

}  // namespace acp::test
