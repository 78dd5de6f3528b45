// SPDX-License-Identifier: Apache-2.0
#include "protocol/request_checks.hpp"

#include <rapidjson/document.h>
#include <rapidjson/reader.h>

#include <set>
#include <string>
#include <vector>

namespace acp::detail {

namespace av2 = acp::v2;

namespace {

Status refuse(const std::string& message) { return Status(Errc::invalid_argument, message); }
Status not_offered(const std::string& message) { return Status(Errc::unsupported, message); }

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

Status no_session_capability(std::string_view method) {
    return not_offered("CLIENT-MUST-31: the agent has no session capability; " + std::string(method) +
                       " cannot be called");
}

Status check_path(std::string_view what, std::string_view path) {
    if (is_absolute_path(path)) return Status();
    return refuse("CLIENT-MUST-38: " + std::string(what) + " must be an absolute path: " + quoted(path));
}

Status check_directories(const std::optional<std::vector<av2::AbsolutePath>>& directories, const AgentFeatures& agent) {
    if (!directories) return Status();
    if (!agent.additional_directories) {
        return refuse(
            "CLIENT-MUST-35: the agent does not advertise session.additionalDirectories; "
            "additionalDirectories must not be sent (not even [])");
    }
    for (const auto& directory : *directories) {
        if (Status s = check_path("each additional directory", directory); !s) return s;
    }
    return Status();
}

Status check_env_unique(const std::vector<av2::EnvVariable>* env, const std::string& server) {
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

// The name member of a server kept as raw JSON (sse, `_` transports), "" when none.
std::string raw_server_name(const RawJson& raw) {
    rapidjson::Document document;
    document.Parse(raw.text.data(), raw.text.size());
    if (document.HasParseError() || !document.IsObject()) return {};
    auto name = document.FindMember("name");
    if (name == document.MemberEnd() || !name->value.IsString()) return {};
    return std::string(name->value.GetString(), name->value.GetStringLength());
}

// A transport without its own v2 variant: v1's sse, or an extension's `_` type.
Status check_other_transport(const av2::McpServer& server, const AgentFeatures& agent) {
    const std::string& type = server.tag();
    if (type == "sse") {
        if (agent.mcp_sse) return Status();
        return refuse(
            "CLIENT-MUST-33: the agent does not support MCP servers over sse (v2 has no sse; a v1 agent "
            "advertises it as mcpCapabilities.sse): server " +
            quoted(raw_server_name(*server.unknown())));
    }
    if (type == "acp") {
        // MCP over ACP (unstable, CLIENT-MUST-37): only with session.mcp.acp, and the entry
        // must name the serverId its mcp/message requests will carry.
        if (!agent.mcp_acp) {
            return refuse(
                "CLIENT-MUST-37: the agent does not support MCP servers over ACP (session.mcp.acp not "
                "advertised): server " +
                quoted(raw_server_name(*server.unknown())));
        }
        rapidjson::Document entry;
        entry.Parse(server.unknown()->text.data(), server.unknown()->text.size());
        auto id = entry.IsObject() ? entry.FindMember("serverId") : entry.MemberEnd();
        if (!entry.IsObject() || id == entry.MemberEnd() || !id->value.IsString()) {
            return refuse("MCP server " + quoted(raw_server_name(*server.unknown())) +
                          " of type 'acp' needs a serverId");
        }
        return Status();
    }
    if (type.empty() || type[0] != '_') {
        return refuse("CLIENT-MUST-33: MCP server type " + quoted(type) +
                      " is not a transport of the agent's protocol; custom transports need a '_' prefix");
    }
    if (agent.mcp_custom_transports.count(type) != 0) return Status();
    return refuse("CLIENT-MUST-33: the agent does not advertise the custom MCP transport " + quoted(type) +
                  " (a key of session.mcp._meta)");
}

Status check_mcp_servers(const std::optional<std::vector<av2::McpServer>>& servers, const AgentFeatures& agent) {
    if (!servers) return Status();
    std::set<std::string> names;
    for (const auto& server : *servers) {
        std::string name;
        switch (server.kind()) {
            case av2::McpServer::Kind::stdio: {
                const auto& stdio = *server.stdio();
                name = stdio.name;
                if (!agent.mcp_stdio) {
                    return refuse(
                        "CLIENT-MUST-33: the agent does not support MCP servers over stdio "
                        "(session.mcp.stdio not advertised): server " +
                        quoted(name));
                }
                if (Status s = check_path("the command of MCP server " + quoted(name), stdio.command); !s) return s;
                if (Status s = check_env_unique(stdio.env ? &*stdio.env : nullptr, name); !s) return s;
                break;
            }
            case av2::McpServer::Kind::http:
                name = server.http()->name;
                if (!agent.mcp_http) {
                    return refuse(
                        "CLIENT-MUST-33: the agent does not support MCP servers over http "
                        "(session.mcp.http not advertised): server " +
                        quoted(name));
                }
                break;
            case av2::McpServer::Kind::unknown:
                if (Status s = check_other_transport(server, agent); !s) return s;
                name = raw_server_name(*server.unknown());
                break;
        }
        if (!name.empty() && !names.insert(name).second) {
            return refuse("CLIENT-MUST-42a: two MCP servers are named " + quoted(name));
        }
    }
    return Status();
}

// replayFrom absent or null: a plain resume; {start}: a full replay; `_…`: an extension cursor.
Status check_replay(const Nullable<av2::ReplayFrom>& replay_from, const AgentFeatures& agent) {
    if (!replay_from.has_value()) {
        if (agent.resume) return Status();
        return not_offered(
            "resume: the agent does not advertise resuming without replay "
            "(v1: sessionCapabilities.resume)");
    }
    if (replay_from->kind() == av2::ReplayFrom::Kind::unknown) {
        const std::string& tag = replay_from->tag();
        if (tag.empty() || tag[0] != '_') {
            return refuse("CLIENT-MUST-47: replayFrom type " + quoted(tag) +
                          " is not one v2 defines; only 'start' or a '_' extension the agent supports");
        }
        if (agent.replay_cursors.count(tag) == 0) {
            return refuse("CLIENT-MUST-47: the agent does not advertise the replay cursor " + quoted(tag) +
                          " (a key of session._meta; ACP v1's session/load replays from the start only)");
        }
    }
    if (agent.replay) return Status();
    return not_offered("resume with replay: the agent does not advertise it (v1: loadSession)");
}

// Walks a written message (SAX) keeping the path to the value being read, and stops at
// the first member an object already has.
class WrittenMessageWalk : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, WrittenMessageWalk> {
public:
    bool Default() { return value_done(); }
    bool String(const char*, rapidjson::SizeType, bool) { return value_done(); }
    bool StartObject() { return open(false); }
    bool EndObject(rapidjson::SizeType) { return close(); }
    bool StartArray() { return open(true); }
    bool EndArray(rapidjson::SizeType) { return close(); }
    bool Key(const char* text, rapidjson::SizeType length, bool) {
        Frame& frame = frames_.back();
        frame.key.assign(text, length);
        if (frame.keys.insert(frame.key).second) return true;
        duplicate_ = true;
        return false;
    }

    bool duplicate() const { return duplicate_; }
    // Where the walk stopped: "cwd", "prompt[0].text", "" at the top.
    std::string path() const {
        std::string path;
        for (const Frame& frame : frames_) {
            if (frame.array) {
                path += "[" + std::to_string(frame.index) + "]";
            } else if (!frame.key.empty()) {
                path += (path.empty() ? "" : ".") + frame.key;
            }
        }
        return path;
    }

private:
    struct Frame {
        bool array = false;
        std::size_t index = 0;
        std::string key;
        std::set<std::string> keys;
    };
    bool open(bool array) {
        Frame frame;
        frame.array = array;
        frames_.push_back(std::move(frame));
        return true;
    }
    bool close() {
        frames_.pop_back();
        return value_done();
    }
    bool value_done() {
        if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
        return true;
    }
    std::vector<Frame> frames_;
    bool duplicate_ = false;
};

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

Status check_login(std::string_view method_id, const AgentFeatures& agent) {
    if (agent.auth_methods.empty()) {
        return not_offered(
            "CLIENT-MUST-27: the agent advertises no authMethods; "
            "auth/login and auth/logout must not be called");
    }
    for (const auto& method : agent.auth_methods) {
        if (method.id != method_id) continue;
        if (method.flow == AuthMethodFeature::Flow::login) return Status();
        if (method.flow == AuthMethodFeature::Flow::terminal) {
            return refuse("CLIENT-MUST-28: auth method " + quoted(method_id) +
                          " is a terminal method; it runs the agent interactively, never through auth/login");
        }
    }
    return refuse("CLIENT-MUST-28: the agent did not advertise the auth method " + quoted(method_id));
}

Status check_logout(const AgentFeatures& agent) {
    if (agent.auth_methods.empty()) {
        return not_offered(
            "CLIENT-MUST-27: the agent advertises no authMethods; "
            "auth/login and auth/logout must not be called");
    }
    if (agent.logout) return Status();
    return not_offered("logout: the agent does not advertise it (v1: agentCapabilities.auth.logout)");
}

Status check_new_session(const av2::NewSessionRequest& request, const AgentFeatures& agent) {
    if (!agent.sessions) return no_session_capability("session/new");
    if (Status s = check_path("cwd", request.cwd); !s) return s;
    if (Status s = check_directories(request.additionalDirectories, agent); !s) return s;
    return check_mcp_servers(request.mcpServers, agent);
}

Status check_resume_session(const av2::ResumeSessionRequest& request, const AgentFeatures& agent) {
    if (!agent.sessions) return no_session_capability("session/resume");
    if (Status s = check_replay(request.replayFrom, agent); !s) return s;
    if (request.sessionId.empty()) return refuse("session/resume needs a sessionId");
    if (Status s = check_path("cwd", request.cwd); !s) return s;
    if (Status s = check_directories(request.additionalDirectories, agent); !s) return s;
    return check_mcp_servers(request.mcpServers, agent);
}

Status check_list_sessions(const av2::ListSessionsRequest& request, const AgentFeatures& agent) {
    if (!agent.sessions) return no_session_capability("session/list");
    if (!agent.list) return not_offered("session/list: the agent does not advertise it (v1: sessionCapabilities.list)");
    if (request.cwd.has_value()) return check_path("the cwd filter", *request.cwd);
    return Status();
}

Status check_close_session(const AgentFeatures& agent) {
    if (!agent.sessions) return no_session_capability("session/close");
    if (agent.close) return Status();
    return not_offered("session/close: the agent does not advertise it (v1: sessionCapabilities.close)");
}

Status check_delete_session(const AgentFeatures& agent) {
    if (!agent.sessions) return no_session_capability("session/delete");
    if (agent.delete_) return Status();
    return not_offered("CLIENT-MUST-34: the agent does not advertise session.delete");
}

Status check_prompt(const av2::PromptRequest& request, const AgentFeatures& agent) {
    if (!agent.sessions) return no_session_capability("session/prompt");
    if (request.prompt.empty()) return refuse("CLIENT-MUST-39: a prompt needs at least one content block");
    for (std::size_t i = 0; i < request.prompt.size(); ++i) {
        const auto& block = request.prompt[i];
        const char* needs = nullptr;
        bool allowed = true;
        switch (block.kind()) {
            case av2::ContentBlock::Kind::text:
            case av2::ContentBlock::Kind::resource_link: break;  // always accepted
            case av2::ContentBlock::Kind::image:
                needs = "session.prompt.image";
                allowed = agent.prompt_image;
                break;
            case av2::ContentBlock::Kind::audio:
                needs = "session.prompt.audio";
                allowed = agent.prompt_audio;
                break;
            case av2::ContentBlock::Kind::resource:
                needs = "session.prompt.embeddedContext";
                allowed = agent.prompt_embedded_context;
                break;
            case av2::ContentBlock::Kind::unknown:
                return refuse("CLIENT-MUST-66: prompt block " + std::to_string(i) + " has type " + quoted(block.tag()) +
                              ", which session.prompt does not allow");
        }
        if (!allowed) {
            return refuse("CLIENT-MUST-32: prompt block " + std::to_string(i) + " is " + quoted(block.tag()) +
                          " but the agent does not advertise " + needs);
        }
    }
    return Status();
}

Status check_cancel(const AgentFeatures& agent) {
    if (agent.sessions) return Status();
    return no_session_capability("session/cancel");
}

Status check_set_config_option(const av2::SetSessionConfigOptionRequest& request, const AgentFeatures& agent,
                               const std::vector<av2::SessionConfigOption>* options) {
    if (!agent.sessions) return no_session_capability("session/set_config_option");
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

Status check_entity_cancel(std::string_view method, const AgentFeatures& agent) {
    if (!agent.sessions) return no_session_capability(method);
    if (agent.cancel_entities) return Status();
    return not_offered(std::string(method) + ": ACP v1 has no such method");
}

Status check_extension_method(std::string_view method) {
    if (!method.empty() && method[0] == '_') return Status();
    return refuse("CLIENT-MUST-16: extension methods must start with '_': " + quoted(method));
}

Status check_raw_object(const RawJson& raw, const std::string& what) {
    if (raw.text.empty()) return Status();
    rapidjson::Document document;
    document.Parse(raw.text.data(), raw.text.size());
    if (document.HasParseError() || !document.IsObject()) {
        return refuse(what + " must be a JSON object: " + raw.text.substr(0, 80));
    }
    return Status();
}

Status check_written_message(std::string_view json) {
    WrittenMessageWalk walk;
    rapidjson::Reader reader;
    rapidjson::MemoryStream stream(json.data(), json.size());
    const rapidjson::ParseResult parsed =
        reader.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(stream, walk);
    if (!parsed) {
        const std::string where = walk.path().empty() ? std::string("the message") : quoted(walk.path());
        if (walk.duplicate()) {
            return refuse("the member " + where +
                          " would be sent twice: an extra field names a member the "
                          "protocol defines (set it through its own field), or raw JSON repeats a key");
        }
        if (parsed.Code() == rapidjson::kParseErrorStringInvalidEncoding) {
            return refuse("a string in " + where + " is not valid UTF-8; nothing was sent");
        }
        return refuse("the message does not encode as JSON (" + std::to_string(parsed.Offset()) + ")");
    }
    return Status();
}

}  // namespace acp::detail
