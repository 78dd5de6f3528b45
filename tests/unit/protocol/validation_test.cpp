// SPDX-License-Identifier: Apache-2.0
// The checks before sending, one rule at a time (the integration tests show them
// refusing real calls; these pin the edges). The checks read the version-neutral
// AgentFeatures; these build them from a v2 answer, as the client does.
#include <doctest/doctest.h>

#include "protocol/request_checks.hpp"

using acp::Status;
using acp::detail::check_extension_method;
using acp::detail::features_of;
using acp::detail::is_absolute_path;
namespace v2 = acp::v2;

namespace {

v2::InitializeResponse agent_with(const char* which) {
    v2::InitializeResponse agent;
    agent.protocolVersion = 2;
    v2::AgentCapabilities caps;
    if (std::string(which) != "none") {
        v2::SessionCapabilities session;
        if (std::string(which) == "full") {
            v2::PromptCapabilities prompt;
            prompt.image = v2::PromptImageCapabilities{};
            session.prompt = prompt;
            v2::McpCapabilities mcp;
            mcp.http = v2::McpHttpCapabilities{};
            mcp._meta = acp::RawJson{R"({"_acme_pipe":{},"_acme_off":null,"plain":{}})"};
            session.mcp = mcp;
            session.additionalDirectories = v2::SessionAdditionalDirectoriesCapabilities{};
            session._meta = acp::RawJson{R"({"_acme_from":{}})"};  // an extension replay cursor
        }
        caps.session = session;
    }
    agent.capabilities = caps;
    return agent;
}

Status check_new_session(const v2::NewSessionRequest& request, const v2::InitializeResponse& agent) {
    return acp::detail::check_new_session(request, features_of(agent));
}
Status check_resume_session(const v2::ResumeSessionRequest& request, const v2::InitializeResponse& agent) {
    return acp::detail::check_resume_session(request, features_of(agent));
}
Status check_list_sessions(const v2::ListSessionsRequest& request, const v2::InitializeResponse& agent) {
    return acp::detail::check_list_sessions(request, features_of(agent));
}
Status check_prompt(const v2::PromptRequest& request, const v2::InitializeResponse& agent) {
    return acp::detail::check_prompt(request, features_of(agent));
}
Status check_login(std::string_view method_id, const v2::InitializeResponse& agent) {
    return acp::detail::check_login(method_id, features_of(agent));
}
Status check_logout(const v2::InitializeResponse& agent) { return acp::detail::check_logout(features_of(agent)); }
Status check_set_config_option(const v2::SetSessionConfigOptionRequest& request,
                               const std::vector<v2::SessionConfigOption>* options) {
    return acp::detail::check_set_config_option(request, features_of(agent_with("session")), options);
}

}  // namespace

TEST_CASE("validation: absolute paths in the agent machine's native syntax") {
    // CLIENT-MUST-38
    for (const char* good : {"/", "/home/u/p", "C:\\Users\\u", "c:/work", "\\\\server\\share\\p"}) {
        INFO(good);
        CHECK(is_absolute_path(good));
    }
    for (const char* bad : {"", "p", "./p", "~/p", "C:", "C:p", "\\single", "file:///p", "\\\\\\x"}) {
        INFO(bad);
        CHECK_FALSE(is_absolute_path(bad));
    }
}

TEST_CASE("validation: a null capability counts as absent") {
    // CLIENT-MUST-22
    v2::InitializeResponse agent = agent_with("session");
    agent.capabilities->session->mcp = acp::Nullable<v2::McpCapabilities>::null();
    v2::NewSessionRequest request;
    request.cwd = "/p";
    request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_http({"web", "https://x", {}, {}, {}})};
    CHECK(check_new_session(request, agent).message().find("CLIENT-MUST-33") != std::string::npos);
    CHECK(check_new_session(request, agent_with("full")).ok());
}

TEST_CASE("validation: additional directories are refused without the capability, checked with it") {
    // CLIENT-MUST-35, -38
    v2::NewSessionRequest request;
    request.cwd = "/p";
    request.additionalDirectories = std::vector<std::string>{"/q"};
    CHECK(check_new_session(request, agent_with("session")).message().find("CLIENT-MUST-35") != std::string::npos);
    CHECK(check_new_session(request, agent_with("full")).ok());
    request.additionalDirectories->push_back("rel");
    CHECK(check_new_session(request, agent_with("full")).message() ==
          "CLIENT-MUST-38: each additional directory must be an absolute path: 'rel'");
}

TEST_CASE("validation: custom MCP transports need a '_' prefix and the agent's extension") {
    // CLIENT-MUST-16, -33: a `_` transport only when a key of session.mcp._meta
    // advertises it with an object.
    v2::NewSessionRequest request;
    request.cwd = "/p";
    request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_unknown("_acme_pipe", acp::RawJson{"{}"})};
    CHECK(check_new_session(request, agent_with("full")).ok());
    CHECK(check_new_session(request, agent_with("session")).message().find("_acme_pipe") != std::string::npos);
    request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_unknown("_acme_off", acp::RawJson{"{}"})};
    CHECK(check_new_session(request, agent_with("full")).message().find("CLIENT-MUST-33") != std::string::npos);
    request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_unknown("acp", acp::RawJson{"{}"})};
    CHECK_FALSE(check_new_session(request, agent_with("full")).ok());
    // v1's sse never goes to a v2 agent.
    request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_unknown("sse", acp::RawJson{"{}"})};
    CHECK(check_new_session(request, agent_with("full")).message().find("over sse") != std::string::npos);
}

TEST_CASE("validation: prompt blocks against session.prompt") {
    // CLIENT-MUST-32, -39, -66
    v2::PromptRequest request;
    request.sessionId = "s";
    CHECK(check_prompt(request, agent_with("full")).message().find("CLIENT-MUST-39") != std::string::npos);
    request.prompt.push_back(v2::ContentBlock::make_image({}));
    CHECK(check_prompt(request, agent_with("full")).ok());
    CHECK(check_prompt(request, agent_with("session")).message().find("CLIENT-MUST-32") != std::string::npos);
    request.prompt = {v2::ContentBlock::make_unknown("_acme_sketch", acp::RawJson{R"({"type":"_acme_sketch"})"})};
    CHECK(check_prompt(request, agent_with("full")).message().find("CLIENT-MUST-66") != std::string::npos);
    CHECK(check_prompt(request, agent_with("none")).message().find("CLIENT-MUST-31") != std::string::npos);
}

TEST_CASE("validation: extension methods start with '_'") {
    // CLIENT-MUST-16
    CHECK(check_extension_method("_acme/x").ok());
    CHECK_FALSE(check_extension_method("acme/x").ok());
    CHECK_FALSE(check_extension_method("").ok());
}

TEST_CASE("validation: login only with an advertised method that goes through auth/login") {
    // CLIENT-MUST-27, -28
    v2::InitializeResponse agent = agent_with("full");
    CHECK(check_login("x", agent).message().find("CLIENT-MUST-27") != std::string::npos);
    v2::AuthMethodTerminal terminal;
    terminal.methodId = "tty";
    terminal.name = "Terminal login";
    v2::AuthMethodAgent oauth;
    oauth.methodId = "oauth";
    oauth.name = "Browser";
    agent.authMethods =
        std::vector<v2::AuthMethod>{v2::AuthMethod::make_terminal(terminal), v2::AuthMethod::make_agent(oauth)};
    CHECK(check_login("oauth", agent).ok());
    CHECK(check_login("tty", agent).message().find("terminal method") != std::string::npos);
    CHECK(check_login("other", agent).message().find("did not advertise") != std::string::npos);
    CHECK(check_logout(agent).ok());
}

TEST_CASE("validation: stdio MCP servers with a repeated environment variable are refused") {
    // CLIENT-MUST-42a
    v2::InitializeResponse agent = agent_with("full");
    v2::McpCapabilities mcp;
    mcp.stdio = v2::McpStdioCapabilities{};
    agent.capabilities->session->mcp = mcp;
    v2::McpServerStdio server;
    server.name = "db";
    server.command = "/bin/db";
    server.env = std::vector<v2::EnvVariable>{{"TOKEN", "a", {}, {}}, {"TOKEN", "b", {}, {}}};
    v2::NewSessionRequest request;
    request.cwd = "/p";
    request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_stdio(server)};
    CHECK(check_new_session(request, agent).message().find("'TOKEN' twice") != std::string::npos);
}

TEST_CASE("validation: session/list and session/resume paths and cursors") {
    // CLIENT-MUST-38, -47
    v2::ListSessionsRequest list;
    list.cwd = "relative";
    CHECK(check_list_sessions(list, agent_with("full")).message().find("the cwd filter") != std::string::npos);
    list.cwd = acp::Nullable<std::string>::null();
    CHECK(check_list_sessions(list, agent_with("full")).ok());
    v2::ResumeSessionRequest resume;
    resume.sessionId = "s";
    resume.cwd = "/p";
    resume.replayFrom = v2::ReplayFrom::make_start({});
    CHECK(check_resume_session(resume, agent_with("full")).ok());
    resume.replayFrom = v2::ReplayFrom::make_unknown("_acme_from", acp::RawJson{R"({"type":"_acme_from"})"});
    CHECK(check_resume_session(resume, agent_with("full")).ok());
    CHECK(check_resume_session(resume, agent_with("minimal")).message().find("CLIENT-MUST-47") != std::string::npos);
    resume.replayFrom = v2::ReplayFrom::make_unknown("_acme_other", acp::RawJson{R"({"type":"_acme_other"})"});
    CHECK(check_resume_session(resume, agent_with("full")).message().find("CLIENT-MUST-47") != std::string::npos);
    resume.replayFrom = v2::ReplayFrom::make_unknown("message", acp::RawJson{R"({"type":"message"})"});
    CHECK(check_resume_session(resume, agent_with("full")).message().find("CLIENT-MUST-47") != std::string::npos);
    resume.replayFrom = acp::Nullable<v2::ReplayFrom>();
    resume.sessionId.clear();
    CHECK_FALSE(check_resume_session(resume, agent_with("full")).ok());
}

TEST_CASE("validation: config options can only be set where the session reported them") {
    v2::SetSessionConfigOptionRequest request;
    request.sessionId = "s";
    request.configId = "model";
    CHECK(check_set_config_option(request, nullptr).message().find("reported no config options") != std::string::npos);
    std::vector<v2::SessionConfigOption> none;
    CHECK(check_set_config_option(request, &none).message().find("no config option 'model'") != std::string::npos);
}
