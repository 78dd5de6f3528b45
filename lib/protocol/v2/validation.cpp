// SPDX-License-Identifier: Apache-2.0
#include "protocol/v2/validation.hpp"

#include <set>
#include <string>

namespace acp::detail::v2 {

namespace av2 = acp::v2;

namespace {

Status refuse(const std::string& message) { return Status(Errc::invalid_argument, message); }

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

// The agent's session capabilities, or nullptr when it has none.
const av2::SessionCapabilities* session_caps(const av2::InitializeResponse& agent) {
    if (!agent.capabilities || !agent.capabilities->session.has_value()) return nullptr;
    return &*agent.capabilities->session;
}

Status check_path(std::string_view what, std::string_view path) {
    if (is_absolute_path(path)) return Status();
    return refuse("CLIENT-MUST-38: " + std::string(what) + " must be an absolute path: " + quoted(path));
}

Status check_directories(const std::optional<std::vector<av2::AbsolutePath>>& directories,
                         const av2::SessionCapabilities& caps) {
    if (!directories) return Status();
    if (!caps.additionalDirectories.has_value()) {
        return refuse("CLIENT-MUST-35: the agent does not advertise session.additionalDirectories; "
                      "additionalDirectories must not be sent (not even [])");
    }
    for (const auto& directory : *directories) {
        if (Status s = check_path("each additional directory", directory); !s) return s;
    }
    return Status();
}

Status check_name_value_list_unique(const std::vector<av2::EnvVariable>* env, const std::string& server) {
    if (env == nullptr) return Status();
    std::set<std::string> names;
    for (const auto& variable : *env) {
        if (!names.insert(variable.name).second) {
            return refuse("CLIENT-MUST-42a: MCP server " + quoted(server) + " sets the environment variable " +
                          quoted(variable.name) + " twice");
        }
    }
    return Status();
}

Status check_mcp_servers(const std::optional<std::vector<av2::McpServer>>& servers,
                         const av2::SessionCapabilities& caps) {
    if (!servers) return Status();
    const av2::McpCapabilities* mcp = caps.mcp.has_value() ? &*caps.mcp : nullptr;
    std::set<std::string> names;
    for (const auto& server : *servers) {
        std::string name;
        switch (server.kind()) {
            case av2::McpServer::Kind::stdio: {
                const auto& stdio = *server.stdio();
                name = stdio.name;
                if (mcp == nullptr || !mcp->stdio.has_value()) {
                    return refuse("CLIENT-MUST-33: the agent does not support MCP servers over stdio "
                                  "(session.mcp.stdio not advertised): server " + quoted(name));
                }
                if (Status s = check_path("the command of MCP server " + quoted(name), stdio.command); !s) return s;
                if (Status s = check_name_value_list_unique(stdio.env ? &*stdio.env : nullptr, name); !s) return s;
                break;
            }
            case av2::McpServer::Kind::http:
                name = server.http()->name;
                if (mcp == nullptr || !mcp->http.has_value()) {
                    return refuse("CLIENT-MUST-33: the agent does not support MCP servers over http "
                                  "(session.mcp.http not advertised): server " + quoted(name));
                }
                break;
            case av2::McpServer::Kind::unknown:
                // Only `_` extensions may be invented; anything else is a future ACP type
                // (or v1's sse, which v2 does not have).
                if (server.tag().empty() || server.tag()[0] != '_') {
                    return refuse("CLIENT-MUST-33: MCP server type " + quoted(server.tag()) +
                                  " is not a v2 transport; custom transports need a '_' prefix");
                }
                break;
        }
        if (!name.empty() && !names.insert(name).second) {
            return refuse("CLIENT-MUST-42a: two MCP servers are named " + quoted(name));
        }
    }
    return Status();
}

Status no_session_capability(std::string_view method) {
    return Status(Errc::unsupported, "CLIENT-MUST-31: the agent has no session capability; " + std::string(method) +
                                         " cannot be called");
}

}  // namespace

bool is_absolute_path(std::string_view path) {
    if (path.empty()) return false;
    if (path[0] == '/') return true;
    if (path.size() >= 3 && ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
        path[1] == ':' && (path[2] == '\\' || path[2] == '/')) {
        return true;
    }
    return path.size() >= 3 && path[0] == '\\' && path[1] == '\\' && path[2] != '\\';
}

Status check_session_capability(const av2::InitializeResponse& agent, std::string_view method) {
    if (session_caps(agent) != nullptr) return Status();
    return no_session_capability(method);
}

Status check_new_session(const av2::NewSessionRequest& request, const av2::InitializeResponse& agent) {
    const av2::SessionCapabilities* session = session_caps(agent);
    if (session == nullptr) return no_session_capability("session/new");
    const auto& caps = *session;
    if (Status s = check_path("cwd", request.cwd); !s) return s;
    if (Status s = check_directories(request.additionalDirectories, caps); !s) return s;
    return check_mcp_servers(request.mcpServers, caps);
}

Status check_resume_session(const av2::ResumeSessionRequest& request, const av2::InitializeResponse& agent) {
    const av2::SessionCapabilities* session = session_caps(agent);
    if (session == nullptr) return no_session_capability("session/resume");
    const auto& caps = *session;
    if (request.sessionId.empty()) return refuse("session/resume needs a sessionId");
    if (Status s = check_path("cwd", request.cwd); !s) return s;
    if (Status s = check_directories(request.additionalDirectories, caps); !s) return s;
    if (Status s = check_mcp_servers(request.mcpServers, caps); !s) return s;
    if (request.replayFrom.has_value() && request.replayFrom->kind() == av2::ReplayFrom::Kind::unknown) {
        const std::string& tag = request.replayFrom->tag();
        if (tag.empty() || tag[0] != '_') {
            return refuse("CLIENT-MUST-47: replayFrom type " + quoted(tag) +
                          " is not one v2 defines; only 'start' or a '_' extension the agent supports");
        }
    }
    return Status();
}

Status check_list_sessions(const av2::ListSessionsRequest& request, const av2::InitializeResponse& agent) {
    if (Status s = check_session_capability(agent, "session/list"); !s) return s;
    if (request.cwd.has_value()) return check_path("the cwd filter", *request.cwd);
    return Status();
}

Status check_delete_session(const av2::InitializeResponse& agent) {
    const av2::SessionCapabilities* session = session_caps(agent);
    if (session == nullptr) return no_session_capability("session/delete");
    if (session->delete_.has_value()) return Status();
    return Status(Errc::unsupported, "CLIENT-MUST-34: the agent does not advertise session.delete");
}

Status check_prompt(const av2::PromptRequest& request, const av2::InitializeResponse& agent) {
    const av2::SessionCapabilities* session = session_caps(agent);
    if (session == nullptr) return no_session_capability("session/prompt");
    if (request.prompt.empty()) return refuse("CLIENT-MUST-39: a prompt needs at least one content block");
    const auto& caps = *session;
    const av2::PromptCapabilities* prompt = caps.prompt.has_value() ? &*caps.prompt : nullptr;
    for (std::size_t i = 0; i < request.prompt.size(); ++i) {
        const auto& block = request.prompt[i];
        const char* needs = nullptr;
        bool allowed = true;
        switch (block.kind()) {
            case av2::ContentBlock::Kind::text:
            case av2::ContentBlock::Kind::resource_link: break;  // always accepted
            case av2::ContentBlock::Kind::image:
                needs = "session.prompt.image";
                allowed = prompt != nullptr && prompt->image.has_value();
                break;
            case av2::ContentBlock::Kind::audio:
                needs = "session.prompt.audio";
                allowed = prompt != nullptr && prompt->audio.has_value();
                break;
            case av2::ContentBlock::Kind::resource:
                needs = "session.prompt.embeddedContext";
                allowed = prompt != nullptr && prompt->embeddedContext.has_value();
                break;
            case av2::ContentBlock::Kind::unknown:
                return refuse("CLIENT-MUST-66: prompt block " + std::to_string(i) + " has type " +
                              quoted(block.tag()) + ", which session.prompt does not allow");
        }
        if (!allowed) {
            return refuse("CLIENT-MUST-32: prompt block " + std::to_string(i) + " is " + quoted(block.tag()) +
                          " but the agent does not advertise " + needs);
        }
    }
    return Status();
}

Status check_login(std::string_view method_id, const av2::InitializeResponse& agent) {
    if (Status s = check_logout(agent); !s) return s;
    for (const auto& method : *agent.authMethods) {
        switch (method.kind()) {
            case av2::AuthMethod::Kind::agent:
                if (method.agent()->methodId == method_id) return Status();
                break;
            case av2::AuthMethod::Kind::terminal:
                if (method.terminal()->methodId == method_id) {
                    return refuse("CLIENT-MUST-28: auth method " + quoted(method_id) +
                                  " is a terminal method; it runs the agent interactively, never through auth/login");
                }
                break;
            case av2::AuthMethod::Kind::unknown: break;
        }
    }
    return refuse("CLIENT-MUST-28: the agent did not advertise the auth method " + quoted(method_id));
}

Status check_logout(const av2::InitializeResponse& agent) {
    if (agent.authMethods && !agent.authMethods->empty()) return Status();
    return Status(Errc::unsupported, "CLIENT-MUST-27: the agent advertises no authMethods; "
                                     "auth/login and auth/logout must not be called");
}

Status check_set_config_option(const av2::SetSessionConfigOptionRequest& request,
                               const std::vector<av2::SessionConfigOption>* options) {
    if (options == nullptr) {
        return refuse("session/set_config_option: session " + quoted(request.sessionId) +
                      " has reported no config options");
    }
    for (const auto& option : *options) {
        if (option.configId != request.configId) continue;
        const auto& wanted = option.type;
        const auto& given = request.type;
        if (wanted.kind() == av2::SessionConfigOptionType::Kind::boolean) {
            if (given.kind() == av2::SetSessionConfigOptionRequestType::Kind::boolean) return Status();
            return refuse("CLIENT-MUST-45: config option " + quoted(option.configId) +
                          " is a boolean; set it with type 'boolean'");
        }
        if (wanted.kind() != av2::SessionConfigOptionType::Kind::select) return Status();  // future type
        if (given.kind() != av2::SetSessionConfigOptionRequestType::Kind::id) {
            return refuse("CLIENT-MUST-45: config option " + quoted(option.configId) +
                          " is a select; set it with type 'id'");
        }
        const std::string& value = given.id()->value;
        const auto& select = *wanted.select();
        auto offered = [&value](const std::vector<av2::SessionConfigSelectOption>& list) {
            for (const auto& entry : list) {
                if (entry.value == value) return true;
            }
            return false;
        };
        bool found = false;
        if (const auto* flat = select.options.options()) found = offered(*flat);
        if (const auto* groups = select.options.groups()) {
            for (const auto& group : *groups) found = found || offered(group.options);
        }
        if (found) return Status();
        return refuse("CLIENT-MUST-45: " + quoted(value) + " is not one of the values config option " +
                      quoted(option.configId) + " offers");
    }
    return refuse("session/set_config_option: the session has no config option " + quoted(request.configId));
}

Status check_extension_method(std::string_view method) {
    if (!method.empty() && method[0] == '_') return Status();
    return refuse("CLIENT-MUST-16: extension methods must start with '_': " + quoted(method));
}

}  // namespace acp::detail::v2
