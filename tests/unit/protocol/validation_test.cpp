// The checks before sending, one rule at a time (the integration tests show them
// refusing real calls; these pin the edges).
#include <doctest/doctest.h>

#include "protocol/v2/validation.hpp"

using namespace acp::detail::v2;
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
            session.mcp = mcp;
            session.additionalDirectories = v2::SessionAdditionalDirectoriesCapabilities{};
        }
        caps.session = session;
    }
    agent.capabilities = caps;
    return agent;
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

TEST_CASE("validation: custom MCP transports need a '_' prefix") {
    // CLIENT-MUST-16, -33
    v2::NewSessionRequest request;
    request.cwd = "/p";
    request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_unknown("_acme_pipe", acp::RawJson{"{}"})};
    CHECK(check_new_session(request, agent_with("full")).ok());
    request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_unknown("acp", acp::RawJson{"{}"})};
    CHECK_FALSE(check_new_session(request, agent_with("full")).ok());
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
