// SPDX-License-Identifier: Apache-2.0
// The v1 adapter's lifting rules, one by one (CLIENT-GUIDE §10, docs/v1.md).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "client/v1_adapter.hpp"
#include "protocol/agent_features.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v2/codec.hpp"

namespace v1 = acp::v1;
namespace v2 = acp::v2;
using acp::detail::V1Lifter;

namespace {

rapidjson::Document parse(const std::string& text) {
    rapidjson::Document document;
    document.Parse(text.c_str());
    REQUIRE_FALSE(document.HasParseError());
    return document;
}

template <class T>
std::string v2_json(const T& value) {
    rapidjson::StringBuffer buffer;
    acp::detail::JsonWriter writer(buffer);
    v2::codec::encode(writer, value);
    return std::string(buffer.GetString(), buffer.GetSize());
}

// Lifts one update of session "s" and returns the v2 updates as JSON.
std::vector<std::string> lift(V1Lifter& lifter, const std::string& update) {
    std::vector<v2::UpdateSessionNotification> out;
    auto status = lifter.lift_update(parse(R"({"sessionId":"s","update":)" + update + "}"), out);
    REQUIRE_MESSAGE(status.ok(), status.to_string());
    std::vector<std::string> json;
    for (const auto& n : out) json.push_back(v2_json(n.update));
    return json;
}

std::string message_id(V1Lifter& lifter, const std::string& update) {
    auto lifted = lift(lifter, update);
    REQUIRE(lifted.size() == 1);
    auto document = parse(lifted[0]);
    return document["messageId"].GetString();
}

}  // namespace

TEST_CASE("v1 adapter: chunks without messageId are grouped by consecutive kind into synthetic ids") {
    V1Lifter lifter;
    const std::string agent = R"({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}})";
    const std::string thought = R"({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"t"}})";
    const std::string tool = R"({"sessionUpdate":"tool_call","toolCallId":"tc1","title":"x"})";
    CHECK(message_id(lifter, agent) == "v1-m1");
    CHECK(message_id(lifter, agent) == "v1-m1");    // same kind follows: same message
    CHECK(message_id(lifter, thought) == "v1-m2");  // another kind: a new message
    CHECK(message_id(lifter, agent) == "v1-m3");
    lift(lifter, tool);  // anything else in between ends it
    CHECK(message_id(lifter, agent) == "v1-m4");
    // An id on the wire wins; id-less chunks of the same kind continue it.
    CHECK(
        message_id(lifter,
                   R"({"sessionUpdate":"agent_message_chunk","messageId":"x","content":{"type":"text","text":"b"}})") ==
        "x");
    CHECK(message_id(lifter, agent) == "x");
    // A replay starts the count again, so it reproduces the live ids.
    lifter.restart("s");
    CHECK(message_id(lifter, agent) == "v1-m1");
}

TEST_CASE("v1 adapter: the user message of a prompt gets the next synthetic id and ends chunk grouping") {
    V1Lifter lifter;
    const std::string user = R"({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}})";
    v2::TextContent text;
    text.text = "hi";
    auto update = lifter.user_message("s", {v2::ContentBlock::make_text(text)});
    REQUIRE(update.user_message() != nullptr);
    CHECK(update.user_message()->messageId == "v1-m1");
    // An agent that echoes the prompt anyway gets a message of its own, not a doubled one.
    CHECK(message_id(lifter, user) == "v1-m2");
}

TEST_CASE("v1 adapter: tool_call creates through tool_call_update - nulls mean unchanged, diffs become changes") {
    // The v1 texts stay beside the changes (no v2 member holds them): hosts review with them.
    V1Lifter lifter;
    auto created =
        lift(lifter, R"({"sessionUpdate":"tool_call","toolCallId":"tc1","title":"Edit","kind":"edit",)"
                     R"("status":"pending","content":[{"type":"diff","path":"/a","oldText":"x","newText":"y"},)"
                     R"({"type":"diff","path":"/b","oldText":null,"newText":"new"}]})");
    REQUIRE(created.size() == 1);
    CHECK(created[0] == R"({"sessionUpdate":"tool_call_update","toolCallId":"tc1","title":"Edit","kind":"edit",)"
                        R"("status":"pending","content":[{"type":"diff","changes":[{"fileType":"text",)"
                        R"("operation":"modify","path":"/a"}],"path":"/a","oldText":"x","newText":"y"},)"
                        R"({"type":"diff","changes":[{"fileType":"text","operation":"add","path":"/b"}],)"
                        R"("path":"/b","newText":"new"}]})");
    auto updated =
        lift(lifter, R"({"sessionUpdate":"tool_call_update","toolCallId":"tc1","title":null,"status":"completed"})");
    CHECK(updated[0] == R"({"sessionUpdate":"tool_call_update","toolCallId":"tc1","status":"completed"})");
}

TEST_CASE("v1 adapter: a plan becomes the plan_update of plan main, commands get their v2 tags") {
    V1Lifter lifter;
    auto plan =
        lift(lifter, R"({"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"}]})");
    CHECK(plan[0] == R"({"sessionUpdate":"plan_update","plan":{"type":"items","planId":"main","entries":)"
                     R"([{"content":"a","priority":"high","status":"pending"}]}})");
    auto commands =
        lift(lifter,
             R"({"sessionUpdate":"available_commands_update","availableCommands":)"
             R"([{"name":"web","description":"d","input":{"hint":"q"}},{"name":"x","description":"e","input":null}]})");
    CHECK(commands[0] == R"({"sessionUpdate":"available_commands_update","availableCommands":[{"type":"command",)"
                         R"("name":"web","description":"d","input":{"type":"text","hint":"q"}},)"
                         R"({"type":"command","name":"x","description":"e"}]})");
}

TEST_CASE("v1 adapter: modes are a select option beside the agent's options - mode updates change it") {
    V1Lifter lifter;
    auto options = lifter.set_lists(
        "s",
        parse(
            R"({"modes":{"currentModeId":"ask","availableModes":[{"id":"ask","name":"Ask"},{"id":"code","name":"Code"}]},)"
            R"("configOptions":[{"id":"model","name":"Model","type":"select","currentValue":"a",)"
            R"("options":[{"group":"g","name":"G","options":[{"value":"a","name":"A"}]}]}]})"));
    REQUIRE(options.has_value());
    REQUIRE(options->size() == 2);
    CHECK((*options)[0].configId == "_v1_mode");
    CHECK((*options)[0].category->value == "mode");
    CHECK((*options)[0].type.select()->currentValue == "ask");
    CHECK((*options)[1].configId == "model");
    CHECK((*options)[1].type.select()->options.groups()->at(0).groupId == "g");
    auto changed = lift(lifter, R"({"sessionUpdate":"current_mode_update","currentModeId":"code"})");
    REQUIRE(changed.size() == 1);
    CHECK(changed[0].find(R"("configId":"_v1_mode")") != std::string::npos);
    CHECK(changed[0].find(R"("currentValue":"code")") != std::string::npos);
    CHECK(changed[0].find(R"("configId":"model")") != std::string::npos);  // the full list
    // A session without modes: a mode update has nothing to change.
    V1Lifter other;
    std::vector<v2::UpdateSessionNotification> out;
    CHECK(
        other
            .lift_update(
                parse(R"({"sessionId":"t","update":{"sessionUpdate":"current_mode_update","currentModeId":"x"}})"), out)
            .ok());
    CHECK(out.empty());
}

TEST_CASE("v1 adapter: an agent whose config options hold a mode selector gets no second one from its modes") {
    V1Lifter lifter;
    auto options = lifter.set_lists(
        "s",
        parse(R"({"modes":{"currentModeId":"ask","availableModes":[{"id":"ask","name":"Ask"}]},)"
              R"("configOptions":[{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"ask",)"
              R"("options":[{"value":"ask","name":"Ask"}]}]})"));
    REQUIRE(options.has_value());
    REQUIRE(options->size() == 1);
    CHECK((*options)[0].configId == "mode");
}

TEST_CASE("v1 adapter: initialize - booleans become markers, stdio is implied, auth methods get v2 fields") {
    v1::InitializeResponse response;
    auto decoded = v1::codec::decode(
        parse(
            R"({"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true,"audio":false},)"
            R"("mcpCapabilities":{"http":false,"sse":true}},"authMethods":[{"id":"login","name":"Log in"},)"
            R"({"type":"terminal","id":"tty","name":"In a terminal","env":{"A":"1"}}]})"),
        response);
    REQUIRE_MESSAGE(decoded.ok(), decoded.to_string());
    v2::InitializeResponse lifted;
    REQUIRE(acp::detail::lift_initialize(response, lifted).ok());
    CHECK(lifted.protocolVersion == 1);
    CHECK(lifted.info.name == "unknown");  // agentInfo is optional in v1
    const auto& session = *lifted.capabilities->session;
    CHECK(session.prompt->image.has_value());
    CHECK_FALSE(session.prompt->audio.has_value());
    CHECK(session.mcp->stdio.has_value());
    CHECK_FALSE(session.mcp->http.has_value());  // sse has no v2 counterpart
    REQUIRE(lifted.authMethods->size() == 2);
    CHECK((*lifted.authMethods)[0].agent()->methodId == "login");  // no type = agent
    const auto* tty = (*lifted.authMethods)[1].terminal();
    REQUIRE(tty != nullptr);
    CHECK(tty->methodId == "tty");
    REQUIRE(tty->env.has_value());
    CHECK(tty->env->at(0).name == "A");
    CHECK(tty->env->at(0).value == "1");
}

TEST_CASE("v1 adapter: the v1 initialize request carries the client's info and only the served capabilities") {
    v2::Implementation info;
    info.name = "ide";
    info.version = "2";
    acp::detail::V1ClientFeatures features;
    features.write_text_file = true;
    features.elicitation_form = true;
    rapidjson::StringBuffer buffer;
    acp::detail::JsonWriter writer(buffer);
    v1::codec::encode(writer, acp::detail::v1_initialize_request(info, features));
    CHECK(
        std::string(buffer.GetString()) ==
        R"({"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":true},)"
        R"("terminal":false,"session":{"compaction":{},"configOptions":{"boolean":{}},"notices":{}},"auth":{"terminal":false},)"
        R"("elicitation":{"form":{}}},"clientInfo":{"name":"ide","version":"2"}})");
}

TEST_CASE("v1 adapter: auth.terminal is true only for a host that runs terminal logins") {
    v2::Implementation info;
    info.name = "ide";
    info.version = "2";
    acp::detail::V1ClientFeatures features;
    features.auth_terminal = true;
    rapidjson::StringBuffer buffer;
    acp::detail::JsonWriter writer(buffer);
    v1::codec::encode(writer, acp::detail::v1_initialize_request(info, features));
    const std::string sent = buffer.GetString();
    CHECK_MESSAGE(sent.find(R"("auth":{"terminal":true})") != std::string::npos, sent);
}

TEST_CASE("v1 adapter: requests are lowered - stdio servers lose their type and always carry args and env") {
    v2::McpServerStdio stdio;
    stdio.name = "files";
    stdio.command = "/bin/mcp";
    std::vector<v1::McpServer> lowered;
    std::vector<acp::RawJson> acp_entries;
    REQUIRE(acp::detail::lower_mcp_servers(std::vector<v2::McpServer>{v2::McpServer::make_stdio(stdio)}, lowered,
                                           acp_entries)
                .ok());
    CHECK(acp_entries.empty());
    REQUIRE(lowered.size() == 1);
    rapidjson::StringBuffer buffer;
    acp::detail::JsonWriter writer(buffer);
    v1::codec::encode(writer, lowered[0]);
    CHECK(std::string(buffer.GetString()) == R"({"name":"files","command":"/bin/mcp","args":[],"env":[]})");
    REQUIRE(acp::detail::lower_mcp_servers(std::nullopt, lowered, acp_entries).ok());
    CHECK(lowered.empty());  // v1 requires the member: [] goes out
}

TEST_CASE("v1 adapter: MCP-over-ACP entries reach a v1 agent's mcpServers, and its acp capability is lifted") {
    v2::McpServer acp_server;
    REQUIRE(v2::codec::decode(parse(R"({"type":"acp","name":"editor","serverId":"editor:1"})"), acp_server).ok());
    v2::McpServerHttp http;
    http.name = "web";
    http.url = "http://127.0.0.1:1/mcp";
    std::vector<v1::McpServer> lowered;
    std::vector<acp::RawJson> acp_entries;
    REQUIRE(acp::detail::lower_mcp_servers(std::vector<v2::McpServer>{acp_server, v2::McpServer::make_http(http)},
                                           lowered, acp_entries)
                .ok());
    REQUIRE(lowered.size() == 1);
    REQUIRE(acp_entries.size() == 1);
    v1::NewSessionRequest request;
    request.cwd = "/tmp";
    request.mcpServers = lowered;
    rapidjson::StringBuffer typed;
    acp::detail::JsonWriter typed_writer(typed);
    v1::codec::encode(typed_writer, request);
    rapidjson::StringBuffer buffer;
    acp::detail::JsonWriter writer(buffer);
    acp::detail::write_with_acp_servers(writer, std::string_view(typed.GetString(), typed.GetSize()), acp_entries);
    const std::string sent = buffer.GetString();
    CHECK_MESSAGE(sent.find(R"("mcpServers":[{"type":"http","name":"web")") != std::string::npos, sent);
    CHECK_MESSAGE(sent.find(R"({"type":"acp","name":"editor","serverId":"editor:1"}])") != std::string::npos, sent);

    // mcpCapabilities.acp: true (and only true) becomes v2's session.mcp.acp.
    for (const char* value : {"true", "false", "{}"}) {
        v1::InitializeResponse v1_answer;
        REQUIRE(v1::codec::decode(
                    parse(std::string(R"({"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"acp":)") +
                          value + "}}}"),
                    v1_answer)
                    .ok());
        v2::InitializeResponse lifted;
        REQUIRE(acp::detail::lift_initialize(v1_answer, lifted).ok());
        const auto features = acp::detail::features_of(v1_answer, lifted);
        CHECK(features.mcp_acp == (std::string(value) == "true"));
        const auto& extras = lifted.capabilities->session->mcp->extra_fields;
        CHECK((extras.size() == 1) == (std::string(value) == "true"));
    }
}

TEST_CASE("v1 adapter: a permission request's tool call becomes its subject and its title") {
    v2::RequestPermissionRequest request;
    REQUIRE(acp::detail::lift_permission(
                parse(R"({"sessionId":"s","toolCall":{"toolCallId":"tc1","title":"Run it","status":null},)"
                      R"("options":[{"optionId":"ok","name":"OK","kind":"allow_once"}]})"),
                request)
                .ok());
    CHECK(request.title == "Run it");
    REQUIRE(request.subject.has_value());
    CHECK(request.subject->tool_call()->toolCall.toolCallId == "tc1");
    CHECK(request.subject->tool_call()->toolCall.status.is_absent());  // null = unchanged in v1
    CHECK(request.options.at(0).optionId == "ok");
    v2::RequestPermissionRequest untitled;
    REQUIRE(acp::detail::lift_permission(parse(R"({"sessionId":"s","toolCall":{"toolCallId":"tc2"},"options":[]})"),
                                         untitled)
                .ok());
    CHECK(untitled.title == "Permission requested");
}
