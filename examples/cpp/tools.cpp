// SPDX-License-Identifier: Apache-2.0
// Editor tools with libacp's C++ API: offer the agent an MCP server named "editor" with
// one tool, current_selection, that returns the text given on the command line; ask the
// agent what is selected, print its reply, allow what it asks permission for.
//   tools SELECTION AGENT [ARGS...]     e.g. tools "int main()" acp-demo-agent
// libacp serves the tool over whatever MCP transport the agent advertised.
#include <acp/client.hpp>
#include <acp/tools.hpp>
#include <acp/turn.hpp>

#include <filesystem>
#include <iostream>

int main(int argc, char** argv) {
    if (argc < 3) return std::cerr << "usage: tools SELECTION AGENT [ARGS...]\n", 2;
    auto fail = [](const acp::Status& why) { return std::cerr << "error: " << why.to_string() << "\n", 1; };
    const std::string selection = argv[1];

    auto editor = acp::ToolServer::create("editor");
    if (!editor) return fail(editor.status());
    acp::Tool tool;
    tool.name = "current_selection";
    tool.title = "Current selection";
    tool.description = "The text selected in the editor";
    tool.annotations = acp::RawJson{R"({"readOnlyHint":true})"};
    tool.handler = [selection](const acp::ToolCall&, acp::ToolResponder answer) { answer.text(selection); };
    if (auto added = (*editor)->add_tool(std::move(tool)); !added) return fail(added);

    uv_loop_t* loop = uv_default_loop();
    acp::SpawnOptions agent;
    agent.argv.assign(argv + 2, argv + argc);
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
    auto session = acp::wait_for<acp::v2::NewSessionResponse>(
        loop, [&](auto done) { client.new_session(request, {*editor}, done); });
    if (!session) return fail(session.status());

    auto end = acp::wait_for<acp::TurnEnd>(loop, [&](auto done) {
        acp::prompt_turn(
            client, session->sessionId, "What is selected?",
            [](const acp::TurnText& t) { std::cout << (t.starts_message ? "\n" : "") << t.text << std::flush; }, done);
    });
    if (!end) return fail(end.status());
    std::cout << "\n[turn ended: " << end->stop_reason.value_or("no reason given") << "]\n";
    return end->ended_normally() ? 0 : 1;
}
