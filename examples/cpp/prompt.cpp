// SPDX-License-Identifier: Apache-2.0
// One prompt with libacp's C++ API: spawn an agent, open a session, send a prompt, print
// the reply as it streams, allow what the agent asks permission for, wait for the end of
// the turn.   prompt AGENT [ARGS...]      e.g. prompt acp-demo-agent
#include <acp/client.hpp>
#include <acp/turn.hpp>

#include <filesystem>
#include <iostream>

int main(int argc, char** argv) {
    if (argc < 2) return std::cerr << "usage: prompt AGENT [ARGS...]\n", 2;
    auto fail = [](const acp::Status& why) { return std::cerr << "error: " << why.to_string() << "\n", 1; };
    uv_loop_t* loop = uv_default_loop();
    acp::SpawnOptions agent;
    agent.argv.assign(argv + 1, argv + argc);
    auto spawned = acp::Client::spawn(loop, agent);
    if (!spawned) return fail(spawned.status());
    acp::Client& client = **spawned;

    client.on_permission_request([](const acp::v2::RequestPermissionRequest& request, acp::PermissionResponder answer) {
        for (const auto& option : request.options) {
            if (option.kind.value != acp::v2::PermissionOptionKind::allow_once) continue;
            std::cout << "\n[" << request.title << ": " << option.name << "]\n";
            return answer.select(option.optionId);
        }
        answer.cancel();
    });
    auto init = acp::wait_for<acp::v2::InitializeResponse>(loop, [&](auto done) { client.initialize(done); });
    if (!init) return fail(init.status());
    acp::v2::NewSessionRequest request;
    request.cwd = std::filesystem::current_path().string();
    auto session =
        acp::wait_for<acp::v2::NewSessionResponse>(loop, [&](auto done) { client.new_session(request, done); });
    if (!session) return fail(session.status());

    auto end = acp::wait_for<acp::TurnEnd>(loop, [&](auto done) {
        acp::prompt_turn(
            client, session->sessionId, "Hello!",
            [](const acp::TurnText& t) { std::cout << (t.starts_message ? "\n" : "") << t.text << std::flush; }, done);
    });
    if (!end) return fail(end.status());
    std::cout << "\n[turn ended: " << end->stop_reason.value_or("no reason given") << "]\n";
    return end->ended_normally() ? 0 : 1;
}
