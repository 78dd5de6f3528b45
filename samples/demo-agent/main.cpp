// SPDX-License-Identifier: Apache-2.0
// acp-demo-agent: a small, offline, deterministic ACP v2 agent over stdio.
//
// It is what acp-chat talks to by default and what the sample tests drive. Every prompt
// runs the same scripted turn, so each part of the protocol shows up once: a thought, a
// plan, a streamed reply, a tool call with a structured diff that first asks permission,
// a display terminal with output, usage and a session title. A prompt that asks for a tool
// of an MCP server the client provided (e.g. "What is selected?" with a tool
// current_selection, or "/tool NAME {json}") calls that tool instead and says what it
// returned: over ACP (mcp/message), Streamable HTTP or a stdio child process, whichever
// the client's entry names (--mcp chooses what is advertised). Sessions persist in
// STATE_DIR/sessions.json, so session/list and session/resume (with full replay) work
// across restarts. Built on libacp's lower layers (JSON-RPC connection, descriptor
// transport, the v2 codec for what it receives); updates are written as JSON text and
// kept verbatim in the history that a replay sends again.
//
//   acp-demo-agent [--state-dir DIR] [--delay-ms N] [--auth-required] [--minimal-caps]
//                  [--protocol-version N] [--hostile] [--two-permissions] [--mcp LIST]
//
// stdout carries ACP messages only; diagnostics go to stderr. Exits 0 when stdin closes.
#include <fcntl.h>
#include <rapidjson/document.h>
#include <uv.h>
#if defined(_WIN32)
#include <direct.h>
#include <io.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "acp/version.hpp"
#include "hostile.hpp"
#include "json_text.hpp"
#include "jsonrpc/connection.hpp"
#include "mcp_client.hpp"
#include "mcp_tools.hpp"
#include "protocol/request_checks.hpp"
#include "protocol/v2/codec.hpp"
#include "protocol/v2/methods.hpp"
#include "stdio_mcp_client.hpp"
#include "support/utf8.hpp"
#include "transport/fd_transport.hpp"
#if ACP_WITH_REMOTE
#include "http_mcp_client.hpp"
#include "transport/remote/remote_libraries.hpp"
#endif

namespace {

using namespace acp::detail;
namespace v2 = acp::v2;
namespace method = acp::v2::method;
using demo::quote;

constexpr const char* kUsage =
    "usage: acp-demo-agent [options]\n"
    "An offline ACP v2 agent over stdio (the default agent of acp-chat).\n"
    "\n"
    "  --state-dir DIR        where sessions.json is kept (default $XDG_STATE_HOME/acp-demo-agent,\n"
    "                         else ~/.local/state/acp-demo-agent)\n"
    "  --delay-ms N           pause between streamed updates (default 30; tests use 0)\n"
    "  --auth-required        advertise the auth methods demo-login (agent) and demo-terminal (terminal)\n"
    "                         and refuse sessions until one of them was used\n"
    "  --login-terminal       the demo-terminal login: mark STATE_DIR as logged in and exit\n"
    "  --minimal-caps         advertise no MCP transports, no session/delete, no additional directories\n"
    "  --protocol-version N   answer initialize with protocol version N (to test clients)\n"
    "  --hostile              put terminal control sequences (clear screen, OSC 52, window title,\n"
    "                         8-bit CSI) in every text it sends, to test clients\n"
    "  --two-permissions      ask a second permission question at the same time as the first;\n"
    "                         the turn goes on once both are answered, and says what the second got\n"
    "  --mcp LIST             the MCP transports to advertise, of acp,http,stdio (default acp,stdio);\n"
    "                         a prompt that asks for a tool of a server the client gives calls it over\n"
    "                         the entry's transport (stdio: the agent runs the command until the\n"
    "                         session ends; http: MCP Streamable HTTP to the url with its headers)\n"
    "  --help                 this text\n";

struct Options {
    std::string state_dir;
    unsigned delay_ms = 30;
    bool auth_required = false;
    bool login_terminal = false;
    bool logged_in = false;  // the terminal login was done before this process started
    bool minimal_caps = false;
    int protocol_version = 0;  // 0: negotiate normally
    bool hostile = false;
    bool two_permissions = false;                             // ask a second question together with the first
    bool mcp_acp = true, mcp_http = false, mcp_stdio = true;  // --mcp
};

constexpr const char* kPermissionOptions = R"([{"optionId":"allow-once","name":"Allow once","kind":"allow_once"},)"
                                           R"({"optionId":"allow-always","name":"Always allow","kind":"allow_always"},)"
                                           R"({"optionId":"reject-once","name":"Reject","kind":"reject_once"}])";

constexpr const char* kCommands =
    R"([{"type":"command","name":"echo","description":"Repeat the text back","input":{"type":"text","hint":"text to repeat"}},)"
    R"j({"type":"command","name":"count","description":"Count slowly up to N (try cancelling it)","input":{"type":"text","hint":"N"}},)j"
    R"j({"type":"command","name":"big","description":"Send N bytes in one chunk (try a client's line limit)","input":{"type":"text","hint":"N"}},)j"
    R"j({"type":"command","name":"markdown","description":"Reply in Markdown (headings, emphasis, lists, code, links)"}])j";

// The reply to /markdown: a bit of each construct a client renders.
constexpr const char* kMarkdownReply =
    "# Markdown from the demo agent\n"
    "\n"
    "Some **bold** text, some *emphasis* and a `code span`.\n"
    "\n"
    "## A list\n"
    "\n"
    "- first item\n"
    "- second item with a [link](https://example.com/acp)\n"
    "\n"
    "1. one\n"
    "2. two\n"
    "\n"
    "> a quoted line\n"
    "\n"
    "```cpp\n"
    "int main() { return 0; }\n"
    "```\n"
    "That is all.";

std::string now_rfc3339() {
    char text[32];
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
#if defined(_WIN32)
    gmtime_s(&tm, &t);
#else
    gmtime_r(&t, &tm);
#endif
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

// Splits text into pieces of a few words each (the chunks of a streamed message).
std::vector<std::string> chunks_of(const std::string& text, int words_per_chunk = 3) {
    std::vector<std::string> out;
    std::string current;
    int words = 0;
    for (char c : text) {
        current.push_back(c);
        if (c == ' ' && ++words == words_per_chunk) {
            out.push_back(current);
            current.clear();
            words = 0;
        }
    }
    if (!current.empty()) out.push_back(current);
    return out;
}

// At most max bytes of text, cut at a character boundary.
std::string shorten(const std::string& text, std::size_t max) {
    if (text.size() <= max) return text;
    return std::string(acp::detail::utf8_truncate(text, max)) + "...";
}

struct Held {
    Responder responder;
    std::string prompt_json;
    std::string text;
};

struct Turn {
    uint64_t serial = 0;
    std::deque<std::function<void()>> steps;
    std::set<std::string> open_tool_calls;  // cancelled if the turn is
    int64_t permission_request = -1;        // while waiting for the user
    int64_t second_permission = -1;         // --two-permissions: the question asked alongside
    std::function<void()> mcp_cancel;       // set while the turn waits for an MCP answer
    uv_timer_t* timer = nullptr;
};

// A client-provided MCP server: over ACP by its serverId, else by its http or stdio entry,
// connected when a prompt first needs it and ended with the session.
struct ToolServer {
    std::string name;
    std::string server_id;               // over ACP; empty for the others
    std::optional<v2::McpServer> entry;  // over http or stdio
    std::shared_ptr<demo::McpClient> client;
};

struct Session {
    std::string id;
    std::string cwd;
    std::vector<std::string> directories;
    std::string title;
    std::string updated_at;
    std::string model = "demo-fast";
    bool thoughts = true;
    bool always_allow = false;
    uint64_t used_tokens = 0;
    std::map<std::string, int> counters;
    std::vector<std::string> history;  // every update of the conversation, as sent
    std::string last_stop;
    bool active = false;  // attached to this connection (new or resume), not closed
    // The MCP servers the client provides for this session.
    std::vector<ToolServer> tool_servers;
    int mcp_requests = 0;
    std::unique_ptr<Turn> turn;
    std::deque<Held> held;
};

struct TimerContext {
    class Agent* agent;
    std::string session_id;
};

class Agent {
public:
    Agent(uv_loop_t* loop, Options options, std::unique_ptr<Transport> transport)
        : loop_(loop),
          options_(std::move(options)),
          rpc_(loop, std::move(transport), Logger([](const acp::LogRecord& r) {
                   // Debug records (e.g. updates dropped after the client left) are noise here.
                   if (r.level == acp::LogLevel::debug) return;
                   std::fprintf(stderr, "acp-demo-agent: %s: %.*s\n", acp::log_level_name(r.level),
                                static_cast<int>(r.message.size()), r.message.data());
               })) {}

    bool load_state();
    void start();

private:
    // text as sent: with control sequences around it in --hostile mode.
    std::string h(const std::string& text) const { return demo::hostile(options_.hostile, text); }
    // --- plumbing -------------------------------------------------------------------
    static void respond_raw(const Responder& responder, std::string json) {
        responder.respond([json = std::move(json)](JsonWriter& w) { write_raw_json(w, json, rapidjson::kObjectType); });
    }
    static void fail(const Responder& responder, int code, const std::string& message, std::string data = {}) {
        if (data.empty()) {
            responder.fail(code, message);
        } else {
            responder.fail(code, message, [data](JsonWriter& w) { write_raw_json(w, data, rapidjson::kObjectType); });
        }
    }
    template <class T>
    static bool decode_params(const JsonValue* params, T& out, const Responder& responder) {
        if (params == nullptr) {
            fail(responder, acp::error_code::invalid_params, "params are required");
            return false;
        }
        if (acp::Status s = v2::codec::decode(*params, out); !s) {
            fail(responder, acp::error_code::invalid_params, s.message());
            return false;
        }
        return true;
    }
    bool require_auth(const Responder& responder) {
        if (!options_.auth_required || logged_in_) return true;
        fail(responder, acp::error_code::auth_required, "authentication required: log in with demo-login",
             R"({"authMethods":["demo-login","demo-terminal"]})");
        return false;
    }
    Session* active_session(const std::string& id, const Responder& responder) {
        auto it = sessions_.find(id);
        if (it == sessions_.end() || !it->second->active) {
            fail(responder, acp::error_code::resource_not_found, "session not found: " + id,
                 R"({"sessionId":)" + quote(id) + "}");
            return nullptr;
        }
        return it->second.get();
    }

    void emit(Session& s, const std::string& update, bool store = true);
    std::string next_id(Session& s, const std::string& prefix) {
        const int n = ++s.counters[prefix];
        return prefix + std::to_string(n);
    }
    std::string config_options(const Session& s) const;
    std::string permission_options() const {
        if (!options_.hostile) return kPermissionOptions;
        return R"([{"optionId":"allow-once","name":)" + quote(h("Allow once")) +
               R"(,"kind":"allow_once"},)"
               R"({"optionId":"reject-once","name":)" +
               quote(h("Reject")) + R"(,"kind":"reject_once"}])";
    }
    std::string commands() const {
        if (!options_.hostile) return kCommands;
        return R"([{"type":"command","name":"echo","description":)" + quote(h("Repeat the text back")) + "}]";
    }
    static std::vector<std::string> replay_history(const Session& s);
    std::string session_info(const Session& s) const;
    void save_state();

    // --- handlers ---------------------------------------------------------------------
    void on_initialize(const JsonValue* params, const Responder& r);
    void on_new(const JsonValue* params, const Responder& r);
    void on_list(const JsonValue* params, const Responder& r);
    void on_resume(const JsonValue* params, const Responder& r);
    void on_close(const JsonValue* params, const Responder& r);
    void on_delete(const JsonValue* params, const Responder& r);
    void on_set_config(const JsonValue* params, const Responder& r);
    void on_prompt(const JsonValue* params, const Responder& r);
    void on_cancel(const JsonValue* params);
    bool check_setup(const std::optional<std::vector<std::string>>& dirs,
                     const std::optional<std::vector<v2::McpServer>>& servers, const Responder& r);

    // --- turns ------------------------------------------------------------------------
    void start_turn(Session& s, const Responder& responder, const std::string& prompt_json, const std::string& text);
    void advance(Session& s);
    void finish(Session& s, const std::string& stop_reason);
    void stop_foreground(Session& s);  // answers held prompts, cancels the turn
    void script_demo(Session& s, const std::string& text);
    void script_echo(Session& s, const std::string& text);
    void script_count(Session& s, int n);
    void stream_message(Session& s, const std::string& kind, const std::string& id, const std::string& text);
    void tool_update(Session& s, const std::string& json_fields, const std::string& tool_call_id,
                     const std::string& status);
    void ask_permission(Session& s, const std::string& tool_call_json, const std::string& tool_call_id);
    void ask_second_permission(Session& s);
    // --- tools of the client's MCP servers -----------------------------------------------
    using McpThen = std::function<void(Session&, const JsonValue* outcome, const std::string& failure)>;
    void send_mcp(Session& s, std::size_t server_index, const std::string& method, const std::string& members,
                  McpThen then);
    void send_mcp_over_acp(Session& s, const std::string& server_id, const std::string& method,
                           const std::string& members, McpThen then);
    acp::Result<std::shared_ptr<demo::McpClient>> connect(const v2::McpServer& entry);
    void use_tools(Session& s, const std::string& text, std::size_t server_index);
    void call_tool(Session& s, std::size_t server_index, const std::string& tool, const std::string& arguments);
    bool record_tool_servers(Session& s, const std::optional<std::vector<v2::McpServer>>& servers, const Responder& r);
    void end_tool_servers(Session& s);

    uv_loop_t* loop_;
    Options options_;
    Connection rpc_;
    // Ordered by creation: "demo-9" before "demo-10" (shorter ids are older).
    struct CreationOrder {
        bool operator()(const std::string& a, const std::string& b) const {
            return a.size() != b.size() ? a.size() < b.size() : a < b;
        }
    };
    std::map<std::string, std::unique_ptr<Session>, CreationOrder> sessions_;
    int session_counter_ = 0;
    uint64_t turn_serial_ = 0;
    bool logged_in_ = options_.logged_in;
#if ACP_WITH_REMOTE
    std::shared_ptr<CurlMulti> curl_multi_;  // for servers over HTTP, made on first use
#endif
};

// --- state file -----------------------------------------------------------------------

bool Agent::load_state() {
    if (options_.state_dir.empty()) return true;
    std::ifstream in(options_.state_dir + "/sessions.json");
    if (!in) return true;  // nothing saved yet
    std::stringstream text;
    text << in.rdbuf();
    rapidjson::Document doc;
    doc.Parse(text.str().c_str());
    if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("format") || !doc["format"].IsString() ||
        std::string(doc["format"].GetString()) != "acp-demo-agent-sessions-1") {
        std::fprintf(stderr, "acp-demo-agent: %s/sessions.json is not a state file of this agent\n",
                     options_.state_dir.c_str());
        return false;
    }
    // Checked whole before anything is used: a hand-edited file must not crash the agent.
    enum class Type { string, boolean, uint, object, array };
    auto is = [](const JsonValue& object, const char* key, Type type) {
        const JsonValue* value = find_member(object, key);
        if (value == nullptr) return false;
        switch (type) {
            case Type::string: return value->IsString();
            case Type::boolean: return value->IsBool();
            case Type::uint: return value->IsUint();
            case Type::object: return value->IsObject();
            case Type::array: return value->IsArray();
        }
        return false;
    };
    bool valid = is(doc, "sessionCounter", Type::uint) && is(doc, "sessions", Type::array);
    for (rapidjson::SizeType i = 0; valid && i < doc["sessions"].Size(); ++i) {
        const JsonValue& st = doc["sessions"][i];
        valid = st.IsObject();
        for (const char* key : {"sessionId", "cwd", "title", "updatedAt", "model", "lastStopReason"}) {
            valid = valid && is(st, key, Type::string);
        }
        valid = valid && is(st, "thoughts", Type::boolean) && is(st, "alwaysAllow", Type::boolean) &&
                is(st, "usedTokens", Type::uint) && is(st, "counters", Type::object) &&
                is(st, "additionalDirectories", Type::array) && is(st, "history", Type::array);
        if (!valid) break;
        for (const auto& d : st["additionalDirectories"].GetArray()) valid = valid && d.IsString();
        for (auto m = st["counters"].MemberBegin(); m != st["counters"].MemberEnd(); ++m)
            valid = valid && m->value.IsInt();
        for (const auto& u : st["history"].GetArray()) valid = valid && u.IsObject();
    }
    if (!valid) {
        std::fprintf(stderr, "acp-demo-agent: %s/sessions.json is malformed\n", options_.state_dir.c_str());
        return false;
    }
    session_counter_ = static_cast<int>(doc["sessionCounter"].GetUint());
    for (const auto& st : doc["sessions"].GetArray()) {
        auto s = std::make_unique<Session>();
        s->id = st["sessionId"].GetString();
        s->cwd = st["cwd"].GetString();
        for (const auto& d : st["additionalDirectories"].GetArray()) s->directories.emplace_back(d.GetString());
        s->title = st["title"].GetString();
        s->updated_at = st["updatedAt"].GetString();
        s->model = st["model"].GetString();
        s->thoughts = st["thoughts"].GetBool();
        s->always_allow = st["alwaysAllow"].GetBool();
        s->used_tokens = st["usedTokens"].GetUint();
        s->last_stop = st["lastStopReason"].GetString();
        for (auto m = st["counters"].MemberBegin(); m != st["counters"].MemberEnd(); ++m) {
            s->counters[m->name.GetString()] = m->value.GetInt();
        }
        for (const auto& u : st["history"].GetArray()) s->history.push_back(to_json_text(u));
        sessions_[s->id] = std::move(s);
    }
    return true;
}

void Agent::save_state() {
    if (options_.state_dir.empty()) return;
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    w.Key("format");
    w.String("acp-demo-agent-sessions-1");
    w.Key("sessionCounter");
    w.Int(session_counter_);
    w.Key("sessions");
    w.StartArray();
    for (const auto& [id, s] : sessions_) {
        w.StartObject();
        w.Key("sessionId");
        write_string(w, s->id);
        w.Key("cwd");
        write_string(w, s->cwd);
        w.Key("additionalDirectories");
        w.StartArray();
        for (const auto& d : s->directories) write_string(w, d);
        w.EndArray();
        w.Key("title");
        write_string(w, s->title);
        w.Key("updatedAt");
        write_string(w, s->updated_at);
        w.Key("model");
        write_string(w, s->model);
        w.Key("thoughts");
        w.Bool(s->thoughts);
        w.Key("alwaysAllow");
        w.Bool(s->always_allow);
        w.Key("usedTokens");
        w.Uint64(s->used_tokens);
        w.Key("lastStopReason");
        write_string(w, s->last_stop);
        w.Key("counters");
        w.StartObject();
        for (const auto& [k, v] : s->counters) {
            write_string(w, k);
            w.Int(v);
        }
        w.EndObject();
        w.Key("history");
        w.StartArray();
        for (const auto& u : s->history) write_raw_json(w, u, rapidjson::kObjectType);
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    // Whole-file rewrite through a rename: a crash never leaves half a file.
    const std::string path = options_.state_dir + "/sessions.json";
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out.write(buffer.GetString(), static_cast<std::streamsize>(buffer.GetSize()));
        out.put('\n');
        if (!out) {
            std::fprintf(stderr, "acp-demo-agent: cannot write %s\n", tmp.c_str());
            return;
        }
    }
    std::rename(tmp.c_str(), path.c_str());
}

// --- plumbing -------------------------------------------------------------------------

void Agent::emit(Session& s, const std::string& update, bool store) {
    // Everything sent must decode as the schema's SessionUpdate; a failure is a bug here.
    rapidjson::Document doc;
    doc.Parse(update.c_str());
    v2::SessionUpdate typed;
    if (doc.HasParseError() || !v2::codec::decode(doc, typed).ok()) {
        std::fprintf(stderr, "acp-demo-agent: bug: invalid update %s\n", update.c_str());
    }
    if (store) s.history.push_back(update);
    rpc_.send_notification(method::session_update, [&](JsonWriter& w) {
        w.StartObject();
        w.Key("sessionId");
        write_string(w, s.id);
        w.Key("update");
        write_raw_json(w, update, rapidjson::kObjectType);
        w.EndObject();
    });
    // Saved when the turn ends (and on every session change), not per update: a streamed
    // reply would rewrite the whole file once per chunk.
}

std::string Agent::config_options(const Session& s) const {
    return R"([{"configId":"model","name":)" + quote(h("Model")) +
           R"(,"category":"model","type":"select","currentValue":)" + quote(s.model) +
           R"(,"options":[{"value":"demo-fast","name":"Demo fast","description":"Short thoughts"},)"
           R"({"value":"demo-thorough","name":"Demo thorough","description":"Longer thoughts"}]},)"
           R"({"configId":"thoughts","name":"Show thoughts","category":"thought_level","type":"boolean","currentValue":)" +
           std::string(s.thoughts ? "true" : "false") + "}]";
}

std::string Agent::session_info(const Session& s) const {
    std::string info = R"({"sessionId":)" + quote(s.id) + R"(,"cwd":)" + quote(h(s.cwd));
    if (!s.directories.empty()) info += R"(,"additionalDirectories":)" + demo::string_array(s.directories);
    if (!s.title.empty()) info += R"(,"title":)" + quote(s.title);
    if (!s.updated_at.empty()) info += R"(,"updatedAt":)" + quote(s.updated_at);
    return info + "}";
}

void Agent::start() {
    rpc_.on_request(std::string(method::initialize), [this](const JsonValue* p, Responder r) { on_initialize(p, r); });
    rpc_.on_request(std::string(method::session_new), [this](const JsonValue* p, Responder r) { on_new(p, r); });
    rpc_.on_request(std::string(method::session_list), [this](const JsonValue* p, Responder r) { on_list(p, r); });
    rpc_.on_request(std::string(method::session_resume), [this](const JsonValue* p, Responder r) { on_resume(p, r); });
    rpc_.on_request(std::string(method::session_close), [this](const JsonValue* p, Responder r) { on_close(p, r); });
    if (!options_.minimal_caps) {
        rpc_.on_request(std::string(method::session_delete),
                        [this](const JsonValue* p, Responder r) { on_delete(p, r); });
    }
    rpc_.on_request(std::string(method::session_set_config_option),
                    [this](const JsonValue* p, Responder r) { on_set_config(p, r); });
    rpc_.on_request(std::string(method::session_prompt), [this](const JsonValue* p, Responder r) { on_prompt(p, r); });
    rpc_.on_notification(std::string(method::session_cancel), [this](const JsonValue* p) { on_cancel(p); });
    if (options_.auth_required) {
        rpc_.on_request(std::string(method::auth_login), [this](const JsonValue* p, Responder r) {
            v2::LoginAuthRequest request;
            if (!decode_params(p, request, r)) return;
            if (request.methodId != "demo-login") {
                fail(r, acp::error_code::invalid_params, "unknown auth method " + request.methodId);
                return;
            }
            logged_in_ = true;
            respond_raw(r, "{}");
        });
        rpc_.on_request(std::string(method::auth_logout), [this](const JsonValue*, Responder r) {
            logged_in_ = false;
            if (!options_.state_dir.empty()) std::remove((options_.state_dir + "/logged-in").c_str());
            respond_raw(r, "{}");
        });
    }
    rpc_.on_closed([this](const acp::Status&) {
        // The client went away: whatever runs stops, the sessions (a running turn's
        // updates so far included) stay on disk.
        save_state();
        for (auto& [id, s] : sessions_) {
            s->tool_servers.clear();  // their processes end, their HTTP sessions too
            if (s->turn) {
                uv_timer_stop(s->turn->timer);
                uv_close(reinterpret_cast<uv_handle_t*>(s->turn->timer), [](uv_handle_t* h) {
                    delete static_cast<TimerContext*>(h->data);
                    delete reinterpret_cast<uv_timer_t*>(h);
                });
                s->turn.reset();
            }
        }
    });
    rpc_.start();
}

// --- lifecycle and sessions -------------------------------------------------------------

void Agent::on_initialize(const JsonValue* params, const Responder& r) {
    v2::InitializeRequest request;
    if (!decode_params(params, request, r)) return;
    int version = 2;
    if (options_.protocol_version != 0) {
        version = options_.protocol_version;
    } else if (request.protocolVersion < 2) {
        fail(r, acp::error_code::unsupported_protocol_version, "this agent speaks ACP v2 only",
             R"({"requested":)" + std::to_string(request.protocolVersion) + R"(,"supported":[2]})");
        return;
    }
    std::string mcp;
    if (options_.mcp_stdio) mcp += R"("stdio":{})";
    if (options_.mcp_http) mcp += std::string(mcp.empty() ? "" : ",") + R"("http":{})";
    if (options_.mcp_acp) mcp += std::string(mcp.empty() ? "" : ",") + R"("acp":{})";
    std::string caps = options_.minimal_caps
                           ? R"({"session":{}})"
                           : R"({"session":{"mcp":{)" + mcp + R"(},"delete":{},"additionalDirectories":{}}})";
    std::string response = R"({"protocolVersion":)" + std::to_string(version) + R"(,"info":{"name":)" +
                           quote(h("acp-demo-agent")) + R"(,"title":)" + quote(h("libacp demo agent")) +
                           R"(,"version":)" + quote(h(acp::version_string())) + R"(},"capabilities":)" + caps;
    if (options_.auth_required) {
        response += R"(,"authMethods":[{"type":"agent","methodId":"demo-login","name":)" + quote(h("Demo login")) +
                    R"(,"description":)" + quote(h("Always succeeds")) +
                    R"(},{"type":"terminal","methodId":"demo-terminal","name":)" + quote(h("Demo terminal login")) +
                    R"(,"args":["--login-terminal"],"env":[{"name":"DEMO_LOGIN_USER","value":)" + quote(h("demo")) +
                    "}]}]";
    }
    respond_raw(r, response + "}");
}

bool Agent::check_setup(const std::optional<std::vector<std::string>>& dirs,
                        const std::optional<std::vector<v2::McpServer>>& servers, const Responder& r) {
    if (dirs && options_.minimal_caps) {
        fail(r, acp::error_code::invalid_params, "additionalDirectories is not supported");
        return false;
    }
    if (dirs) {
        for (const auto& d : *dirs) {
            if (d.empty() || d[0] != '/') {
                fail(r, acp::error_code::invalid_params, "additional directories must be absolute: " + d);
                return false;
            }
        }
    }
    if (servers) {
        for (const auto& server : *servers) {
            const bool advertised =
                !options_.minimal_caps && ((server.kind() == v2::McpServer::Kind::stdio && options_.mcp_stdio) ||
                                           (server.kind() == v2::McpServer::Kind::http && options_.mcp_http) ||
                                           (server.tag() == "acp" && options_.mcp_acp));
            if (!advertised) {
                fail(r, acp::error_code::invalid_params, "unsupported MCP transport",
                     R"({"type":)" + quote(server.tag()) + "}");
                return false;
            }
        }
    }
    return true;
}

void Agent::on_new(const JsonValue* params, const Responder& r) {
    if (!require_auth(r)) return;
    v2::NewSessionRequest request;
    if (!decode_params(params, request, r)) return;
    // "/..." or, from a Windows client, "C:\..." and UNC paths.
    if (!acp::detail::is_absolute_path(request.cwd)) {
        fail(r, acp::error_code::invalid_params, "cwd must be an absolute path");
        return;
    }
    if (!check_setup(request.additionalDirectories, request.mcpServers, r)) return;
    auto s = std::make_unique<Session>();
    s->id = "demo-" + std::to_string(++session_counter_);
    s->cwd = request.cwd;
    if (request.additionalDirectories) s->directories = *request.additionalDirectories;
    if (!record_tool_servers(*s, request.mcpServers, r)) return;
    s->active = true;
    Session& session = *s;
    sessions_[s->id] = std::move(s);
    save_state();
    respond_raw(r, R"({"sessionId":)" + quote(session.id) + R"(,"configOptions":)" + config_options(session) +
                       R"(,"availableCommands":)" + commands() + "}");
}

void Agent::on_list(const JsonValue* params, const Responder& r) {
    if (!require_auth(r)) return;
    v2::ListSessionsRequest request;
    if (!decode_params(params, request, r)) return;
    if (request.cursor.has_value()) {
        // Everything fits on one page, so no cursor was ever handed out.
        fail(r, acp::error_code::invalid_params, "unknown cursor");
        return;
    }
    std::string list;
    for (const auto& [id, s] : sessions_) {
        if (request.cwd.has_value() && *request.cwd != s->cwd) continue;
        if (!list.empty()) list += ",";
        list += session_info(*s);
    }
    respond_raw(r, R"({"sessions":[)" + list + "]}");
}

void Agent::on_resume(const JsonValue* params, const Responder& r) {
    if (!require_auth(r)) return;
    v2::ResumeSessionRequest request;
    if (!decode_params(params, request, r)) return;
    auto it = sessions_.find(request.sessionId);
    if (it == sessions_.end()) {
        fail(r, acp::error_code::resource_not_found, "session not found: " + request.sessionId,
             R"({"sessionId":)" + quote(request.sessionId) + "}");
        return;
    }
    Session& s = *it->second;
    if (request.cwd != s.cwd) {
        fail(r, acp::error_code::invalid_params, "cwd does not match the session's: " + s.cwd);
        return;
    }
    if (!check_setup(request.additionalDirectories, request.mcpServers, r)) return;
    const bool replay = request.replayFrom.has_value();
    if (replay && request.replayFrom->kind() != v2::ReplayFrom::Kind::start) {
        fail(r, acp::error_code::invalid_params, "unsupported replay cursor");  // AGENT-MUST-08
        return;
    }
    if (!record_tool_servers(s, request.mcpServers, r)) return;
    if (request.additionalDirectories) s.directories = *request.additionalDirectories;
    s.active = true;
    save_state();
    if (replay) {
        for (const auto& update : replay_history(s)) emit(s, update, false);
    }
    // The current state after any replay, before the response (AGENT-MUST-09).
    if (s.turn) {
        emit(s, R"({"sessionUpdate":"state_update","state":"running"})", false);
    } else {
        std::string idle = R"({"sessionUpdate":"state_update","state":"idle")";
        if (!s.last_stop.empty()) idle += R"(,"stopReason":)" + quote(s.last_stop);
        emit(s, idle + "}", false);
    }
    respond_raw(r, R"({"configOptions":)" + config_options(s) + R"(,"availableCommands":)" + commands() + "}");
}

// The history as a replay sends it: a terminal's output as one snapshot where its first
// chunk was, not every historic chunk (CLIENT-GUIDE 7.6).
std::vector<std::string> Agent::replay_history(const Session& s) {
    std::map<std::string, std::string> output;  // terminal id -> all its bytes
    std::vector<std::string> terminal_of(s.history.size());
    for (std::size_t i = 0; i < s.history.size(); ++i) {
        rapidjson::Document doc;
        doc.Parse(s.history[i].c_str());
        const JsonValue* tag = find_member(doc, "sessionUpdate");
        if (tag == nullptr || !tag->IsString() || string_view_of(*tag) != "terminal_output_chunk") continue;
        terminal_of[i] = doc["terminalId"].GetString();
        output[terminal_of[i]] += demo::unbase64(string_view_of(doc["data"]));
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.history.size(); ++i) {
        if (terminal_of[i].empty()) {
            out.push_back(s.history[i]);
            continue;
        }
        auto it = output.find(terminal_of[i]);
        if (it == output.end()) continue;  // its snapshot went out already
        out.push_back(R"({"sessionUpdate":"terminal_update","terminalId":)" + quote(it->first) +
                      R"(,"output":{"data":)" + quote(demo::base64(it->second)) + "}}");
        output.erase(it);
    }
    return out;
}

void Agent::stop_foreground(Session& s) {
    // Held prompts were never inserted: they are answered "cancelled" (§7.2).
    for (auto& held : s.held) held.responder.fail(acp::error_code::request_cancelled, "cancelled");
    s.held.clear();
    if (s.turn) finish(s, "cancelled");
}

void Agent::on_close(const JsonValue* params, const Responder& r) {
    v2::CloseSessionRequest request;
    if (!decode_params(params, request, r)) return;
    auto it = sessions_.find(request.sessionId);
    if (it != sessions_.end()) {
        // The cancelled idle update goes out before the response (AGENT-MUST-14).
        stop_foreground(*it->second);
        end_tool_servers(*it->second);
        it->second->active = false;
    }
    respond_raw(r, "{}");
}

void Agent::on_delete(const JsonValue* params, const Responder& r) {
    v2::DeleteSessionRequest request;
    if (!decode_params(params, request, r)) return;
    auto it = sessions_.find(request.sessionId);
    if (it != sessions_.end()) {
        stop_foreground(*it->second);
        sessions_.erase(it);
        save_state();
    }
    respond_raw(r, "{}");
}

void Agent::on_set_config(const JsonValue* params, const Responder& r) {
    if (!require_auth(r)) return;
    v2::SetSessionConfigOptionRequest request;
    if (!decode_params(params, request, r)) return;
    Session* s = active_session(request.sessionId, r);
    if (s == nullptr) return;
    // Rejected values change nothing (AGENT-MUST-17).
    if (request.configId == "model") {
        const auto* id = request.type.id();
        if (id == nullptr || (id->value != "demo-fast" && id->value != "demo-thorough")) {
            fail(r, acp::error_code::invalid_params, "model takes demo-fast or demo-thorough");
            return;
        }
        s->model = id->value;
    } else if (request.configId == "thoughts") {
        const auto* value = request.type.boolean();
        if (value == nullptr) {
            fail(r, acp::error_code::invalid_params, "thoughts takes a boolean");
            return;
        }
        s->thoughts = value->value;
    } else {
        fail(r, acp::error_code::invalid_params, "unknown config option " + request.configId);
        return;
    }
    save_state();
    respond_raw(r, R"({"configOptions":)" + config_options(*s) + "}");
}

void Agent::on_prompt(const JsonValue* params, const Responder& r) {
    if (!require_auth(r)) return;
    v2::PromptRequest request;
    if (!decode_params(params, request, r)) return;
    Session* s = active_session(request.sessionId, r);
    if (s == nullptr) return;
    if (request.prompt.empty()) {
        fail(r, acp::error_code::invalid_params, "the prompt is empty");
        return;
    }
    std::string text;
    for (const auto& block : request.prompt) {
        if (const auto* t = block.text()) {
            if (!text.empty()) text += " ";
            text += t->text;
        } else if (block.kind() != v2::ContentBlock::Kind::resource_link) {
            // AGENT-MUST-06: only text and resource links without prompt capabilities.
            fail(r, acp::error_code::invalid_params, "unsupported prompt content block type " + block.tag());
            return;
        }
    }
    if (options_.hostile) std::fprintf(stderr, "%s\n", h("the model is slow today").c_str());
    if (options_.hostile && text == "fail") {
        fail(r, acp::error_code::internal_error, h("the model is unavailable"),
             R"({"detail":)" + quote(h("quota")) + "}");
        return;
    }
    std::string prompt_json = to_json_text((*params)["prompt"]);
    if (s->turn) {
        // Held until the running turn ends, then inserted in arrival order (§7.2).
        s->held.push_back(Held{r, std::move(prompt_json), std::move(text)});
        return;
    }
    start_turn(*s, r, prompt_json, text);
}

void Agent::on_cancel(const JsonValue* params) {
    v2::CancelSessionNotification request;
    if (params == nullptr || !v2::codec::decode(*params, request).ok()) return;
    auto it = sessions_.find(request.sessionId);
    if (it != sessions_.end()) stop_foreground(*it->second);
}

// --- turns ------------------------------------------------------------------------------

void Agent::start_turn(Session& s, const Responder& responder, const std::string& prompt_json,
                       const std::string& text) {
    s.turn = std::make_unique<Turn>();
    s.turn->serial = ++turn_serial_;
    s.turn->timer = new uv_timer_t;
    uv_timer_init(loop_, s.turn->timer);
    s.turn->timer->data = new TimerContext{this, s.id};
    emit(s, R"({"sessionUpdate":"state_update","state":"running"})", false);
    const std::string user_id = next_id(s, "u");
    emit(s, R"({"sessionUpdate":"user_message","messageId":)" + quote(user_id) + R"(,"content":)" + prompt_json + "}");
    // Answered once the message is inserted, not when the turn ends (AGENT-MUST-11).
    respond_raw(responder, R"({"messageId":)" + quote(user_id) + "}");

    if (text.rfind("/echo", 0) == 0 && (text.size() == 5 || text[5] == ' ')) {
        script_echo(s, text.size() > 6 ? text.substr(6) : std::string());
    } else if (text.rfind("/count", 0) == 0 && (text.size() == 6 || text[6] == ' ')) {
        int n = text.size() > 7 ? std::atoi(text.c_str() + 7) : 10;
        script_count(s, n < 1 ? 10 : (n > 1000 ? 1000 : n));
    } else if (text.rfind("/big ", 0) == 0) {
        // One chunk of N bytes, to try a client's line limit.
        const std::size_t n = std::strtoul(text.c_str() + 5, nullptr, 10);
        const std::string id = next_id(s, "m");
        s.turn->steps.push_back([this, &s, id, n] {
            emit(s, R"({"sessionUpdate":"agent_message_chunk","messageId":)" + quote(id) +
                        R"(,"content":{"type":"text","text":)" +
                        quote(std::string(std::min<std::size_t>(n, 1u << 28), 'y')) + "}}");
        });
        stream_message(s, "agent_message_chunk", next_id(s, "m"), "That was a big one.");
    } else if (text == "/markdown") {
        stream_message(s, "agent_message_chunk", next_id(s, "m"), kMarkdownReply);
    } else if (text.rfind("/tool ", 0) == 0 && !s.tool_servers.empty()) {
        // /tool NAME [ARGUMENTS-JSON]: that tool of the first server, with those arguments.
        const std::string rest = text.substr(6);
        const std::size_t space = rest.find(' ');
        const std::string arguments = space == std::string::npos ? "{}" : rest.substr(space + 1);
        call_tool(s, 0, rest.substr(0, space), arguments);
        return;
    } else if ((text.empty() || text[0] != '/') && !s.tool_servers.empty()) {
        use_tools(s, text, 0);
        return;
    } else if (!text.empty() && text[0] == '/') {
        stream_message(s, "agent_message_chunk", next_id(s, "m"),
                       "Unknown command " + text.substr(0, text.find(' ')) + ". Try /echo TEXT or /count N.");
    } else {
        script_demo(s, text);
    }
    advance(s);
}

void Agent::advance(Session& s) {
    Turn& t = *s.turn;
    if (t.permission_request >= 0 || t.second_permission >= 0 || t.mcp_cancel) return;
    if (t.steps.empty()) {
        finish(s, "end_turn");
        return;
    }
    uv_timer_start(
        t.timer,
        [](uv_timer_t* timer) {
            auto* ctx = static_cast<TimerContext*>(timer->data);
            Agent& agent = *ctx->agent;
            auto it = agent.sessions_.find(ctx->session_id);
            if (it == agent.sessions_.end() || !it->second->turn) return;
            Session& session = *it->second;
            const uint64_t serial = session.turn->serial;
            auto step = std::move(session.turn->steps.front());
            session.turn->steps.pop_front();
            step();
            if (session.turn && session.turn->serial == serial) agent.advance(session);
        },
        options_.delay_ms, 0);
}

void Agent::finish(Session& s, const std::string& stop_reason) {
    Turn& t = *s.turn;
    if (t.permission_request >= 0) {
        // Stop waiting: the request is withdrawn and counts as not approved (AGENT-MUST-13).
        rpc_.cancel_request(t.permission_request);
        t.permission_request = -1;
    }
    if (t.second_permission >= 0) {
        rpc_.cancel_request(t.second_permission);
        t.second_permission = -1;
    }
    if (t.mcp_cancel) {
        auto cancel = std::move(t.mcp_cancel);
        t.mcp_cancel = nullptr;
        cancel();
    }
    // Final statuses come before the idle update.
    for (const auto& id : std::set<std::string>(t.open_tool_calls)) {
        emit(s, R"({"sessionUpdate":"tool_call_update","toolCallId":)" + quote(id) + R"(,"status":"cancelled"})");
    }
    s.last_stop = stop_reason;
    uv_timer_stop(t.timer);
    uv_close(reinterpret_cast<uv_handle_t*>(t.timer), [](uv_handle_t* h) {
        delete static_cast<TimerContext*>(h->data);
        delete reinterpret_cast<uv_timer_t*>(h);
    });
    s.turn.reset();
    save_state();
    emit(s, R"({"sessionUpdate":"state_update","state":"idle","stopReason":)" + quote(stop_reason) + "}", false);
    if (!s.held.empty()) {
        Held next = std::move(s.held.front());
        s.held.pop_front();
        start_turn(s, next.responder, next.prompt_json, next.text);
    }
}

void Agent::stream_message(Session& s, const std::string& kind, const std::string& id, const std::string& text) {
    for (const auto& piece : options_.hostile ? demo::small_pieces(h(text)) : chunks_of(text)) {
        s.turn->steps.push_back([this, &s, kind, id, piece] {
            emit(s, R"({"sessionUpdate":)" + quote(kind) + R"(,"messageId":)" + quote(id) +
                        R"(,"content":{"type":"text","text":)" + quote(piece) + "}}");
        });
    }
}

void Agent::tool_update(Session& s, const std::string& json_fields, const std::string& tool_call_id,
                        const std::string& status) {
    s.turn->steps.push_back([this, &s, json_fields, tool_call_id, status] {
        if (status == "pending" || status == "in_progress") {
            s.turn->open_tool_calls.insert(tool_call_id);
        } else {
            s.turn->open_tool_calls.erase(tool_call_id);
        }
        emit(s, R"({"sessionUpdate":"tool_call_update","toolCallId":)" + quote(tool_call_id) + R"(,"status":)" +
                    quote(status == "pending" ? h(status) : status) + json_fields + "}");
    });
}

void Agent::script_echo(Session& s, const std::string& text) {
    stream_message(s, "agent_message_chunk", next_id(s, "m"), text.empty() ? "(nothing to echo)" : text);
}

void Agent::script_count(Session& s, int n) {
    const std::string id = next_id(s, "m");
    for (int i = 1; i <= n; ++i) {
        s.turn->steps.push_back([this, &s, id, i] {
            emit(s, R"({"sessionUpdate":"agent_message_chunk","messageId":)" + quote(id) +
                        R"(,"content":{"type":"text","text":)" + quote(std::to_string(i) + "\n") + "}}");
        });
    }
}

std::string plan_update(bool hostile, const std::string& plan_id, const char* s1, const char* s2, const char* s3) {
    return R"({"sessionUpdate":"plan_update","plan":{"type":"items","planId":)" + quote(plan_id) +
           R"(,"entries":[{"content":)" + quote(demo::hostile(hostile, "Answer the message")) +
           R"(,"priority":"high","status":")" + s1 + R"("},{"content":)" +
           quote(demo::hostile(hostile, "Note it down in NOTES.md")) + R"(,"priority":"medium","status":")" + s2 +
           R"("},{"content":)" + quote(demo::hostile(hostile, "Run the checks")) + R"(,"priority":"low","status":")" +
           s3 + R"("}]}})";
}

void Agent::script_demo(Session& s, const std::string& text) {
    auto& steps = s.turn->steps;
    const std::string dir = s.cwd.size() > 1 && s.cwd.back() == '/' ? s.cwd.substr(0, s.cwd.size() - 1) : s.cwd;
    const std::string path = h((dir == "/" ? "" : dir) + "/NOTES.md");
    const std::string line = shorten(text, 60);

    if (options_.hostile) {
        steps.push_back([this, &s] {
            emit(s, R"({"sessionUpdate":"notice","severity":"warning","title":)" + quote(h("Heads up")) +
                        R"(,"description":)" + quote(h("this agent is hostile")) + "}");
        });
    }
    if (s.thoughts) {
        std::string thought = "The user wrote \"" + line + "\". I will answer, note it down and run the checks.";
        if (s.model == "demo-thorough") thought += " Thorough mode: I double-check the plan before acting.";
        stream_message(s, "agent_thought_chunk", next_id(s, "th"), thought);
    }
    const std::string plan_id = next_id(s, "plan");
    steps.push_back(
        [this, &s, plan_id] { emit(s, plan_update(options_.hostile, plan_id, "in_progress", "pending", "pending")); });
    stream_message(s, "agent_message_chunk", next_id(s, "m"),
                   "You said: " + line +
                       "\nI am the libacp demo agent: I run offline and every turn shows each "
                       "part of the protocol. Let me note that down.");

    const std::string edit = next_id(s, "tc");
    const std::string patch = "diff --git " + path + " " + path + "\n--- " + path + "\n+++ " + path +
                              "\n@@ -1,2 +1,2 @@\n # Notes\n-- (nothing yet)\n+- " + line + "\n";
    const std::string diff =
        R"({"type":"diff","changes":[{"operation":"modify","path":)" + quote(path) +
        R"(,"fileType":"text","mimeType":"text/markdown"}],"patch":{"format":"git_patch","text":)" + quote(patch) +
        "}}";
    const std::string edit_fields =
        R"(,"title":)" + quote(h("Add a line to NOTES.md")) + R"(,"name":"edit_file","kind":)" + quote(h("edit"));
    const std::string tool_call = R"({"toolCallId":)" + quote(edit) + edit_fields +
                                  R"(,"status":"pending",)"
                                  R"("locations":[{"path":)" +
                                  quote(path) + R"(,"line":2}],"rawInput":{"path":)" + quote(path) + R"(,"line":)" +
                                  quote(line) + R"(},"content":[)" + diff + "]}";
    tool_update(s,
                edit_fields + R"(,"locations":[{"path":)" + quote(path) + R"(,"line":2}],"rawInput":{"path":)" +
                    quote(path) + R"(,"line":)" + quote(line) + R"(},"content":[)" + diff + "]",
                edit, "pending");
    steps.push_back([this, &s, tool_call, edit] { ask_permission(s, tool_call, edit); });
    tool_update(s, "", edit, "in_progress");
    tool_update(s, R"(,"rawOutput":{"linesChanged":1})", edit, "completed");
    steps.push_back([this, &s, plan_id] {
        emit(s, plan_update(options_.hostile, plan_id, "completed", "completed", "in_progress"));
    });

    const std::string check = next_id(s, "tc");
    const std::string term = next_id(s, "term");
    tool_update(s,
                R"(,"title":)" + quote(h("Run the checks")) +
                    R"(,"name":"run","kind":"execute","rawInput":{"command":"make check"},)"
                    R"("content":[{"type":"terminal","terminalId":)" +
                    quote(term) + "}]",
                check, "in_progress");
    steps.push_back([this, &s, term, dir] {
        emit(s, R"({"sessionUpdate":"terminal_update","terminalId":)" + quote(term) + R"(,"command":)" +
                    quote(h("make check")) + R"(,"cwd":)" + quote(dir) + R"(,"size":{"cols":80,"rows":24}})");
    });
    for (const char* out : {"$ make check\r\n", "checking NOTES.md ... ", "ok\r\n", "1 file checked, 0 problems\r\n"}) {
        steps.push_back([this, &s, term, out] {
            emit(s, R"({"sessionUpdate":"terminal_output_chunk","terminalId":)" + quote(term) + R"(,"data":)" +
                        quote(demo::base64(h(out))) + "}");
        });
    }
    steps.push_back([this, &s, term] {
        emit(s,
             R"({"sessionUpdate":"terminal_update","terminalId":)" + quote(term) + R"(,"exitStatus":{"exitCode":0}})");
    });
    tool_update(s, R"(,"rawOutput":{"exitCode":0})", check, "completed");
    steps.push_back([this, &s, plan_id] {
        emit(s, plan_update(options_.hostile, plan_id, "completed", "completed", "completed"));
    });
    stream_message(s, "agent_message_chunk", next_id(s, "m"), "Done: NOTES.md has your line and the checks pass.");

    const uint64_t tokens = 1000 + 4 * text.size();
    steps.push_back([this, &s, tokens] {
        s.used_tokens += tokens;
        char cost[64];
        std::snprintf(cost, sizeof cost, "%.4f", static_cast<double>(s.used_tokens) / 1e6);
        emit(s, R"({"sessionUpdate":"usage_update","used":)" + std::to_string(s.used_tokens) +
                    R"(,"size":200000,"cost":{"amount":)" + cost + R"(,"currency":)" + quote(h("USD")) + "}}");
    });
    steps.push_back([this, &s, line] {
        std::string update = R"({"sessionUpdate":"session_info_update")";
        if (s.title.empty()) {
            s.title = h(shorten(line, 40));
            update += R"(,"title":)" + quote(s.title);
        }
        s.updated_at = now_rfc3339();
        emit(s, update + R"(,"updatedAt":)" + quote(s.updated_at) + "}");
    });
}

void Agent::ask_permission(Session& s, const std::string& tool_call_json, const std::string& tool_call_id) {
    if (s.always_allow) return;  // the user chose "Always allow" earlier in this session
    emit(s, R"({"sessionUpdate":"state_update","state":"requires_action"})", false);
    const uint64_t serial = s.turn->serial;
    const std::string session_id = s.id;
    const std::string params = R"({"sessionId":)" + quote(s.id) + R"(,"title":)" + quote(h("Edit NOTES.md?")) +
                               R"(,"description":)" + quote(h("The agent wants to add a line to NOTES.md.")) +
                               ","
                               R"("subject":{"type":"tool_call","toolCall":)" +
                               tool_call_json + R"(},"options":)" + permission_options() + "}";
    s.turn->permission_request = rpc_.send_request(
        method::session_request_permission,
        [params](JsonWriter& w) { write_raw_json(w, params, rapidjson::kObjectType); },
        [this, serial, session_id, tool_call_id](const Reply& reply) {
            auto it = sessions_.find(session_id);
            if (it == sessions_.end() || !it->second->turn || it->second->turn->serial != serial) return;
            Session& session = *it->second;
            session.turn->permission_request = -1;
            std::string option;
            if (reply.status.ok() && reply.result != nullptr) {
                v2::RequestPermissionResponse response;
                if (v2::codec::decode(*reply.result, response).ok()) {
                    if (const auto* selected = response.outcome.selected()) option = selected->optionId;
                }
            }
            // Only an offered allow option approves (AGENT-MUST-18).
            if (option == "allow-once" || option == "allow-always") {
                if (option == "allow-always") session.always_allow = true;
                emit(session, R"({"sessionUpdate":"state_update","state":"running"})", false);
                advance(session);
                return;
            }
            if (option == "reject-once") {
                emit(session, R"({"sessionUpdate":"state_update","state":"running"})", false);
                session.turn->steps.clear();
                tool_update(session, R"(,"rawOutput":{"rejected":true})", tool_call_id, "failed");
                stream_message(session, "agent_message_chunk", next_id(session, "m"), "OK, I left NOTES.md alone.");
                advance(session);
                return;
            }
            finish(session, "cancelled");  // cancelled or unknown outcome: never approval
        });
    if (options_.two_permissions) ask_second_permission(s);
}

// Sent right after the first question, so the client holds two at once. Its answer only
// shows in the conversation; the turn waits for it.
void Agent::ask_second_permission(Session& s) {
    const uint64_t serial = s.turn->serial;
    const std::string session_id = s.id;
    const std::string params =
        R"({"sessionId":)" + quote(s.id) + R"(,"title":"Also run the checks?","options":)" + permission_options() + "}";
    s.turn->second_permission = rpc_.send_request(
        method::session_request_permission,
        [params](JsonWriter& w) { write_raw_json(w, params, rapidjson::kObjectType); },
        [this, serial, session_id](const Reply& reply) {
            auto it = sessions_.find(session_id);
            if (it == sessions_.end() || !it->second->turn || it->second->turn->serial != serial) return;
            Session& session = *it->second;
            session.turn->second_permission = -1;
            std::string option = "nothing";
            if (reply.status.ok() && reply.result != nullptr) {
                v2::RequestPermissionResponse response;
                if (v2::codec::decode(*reply.result, response).ok()) {
                    option = response.outcome.selected() != nullptr ? response.outcome.selected()->optionId
                                                                    : response.outcome.tag();
                }
            }
            session.turn->steps.push_front([this, &session, option] {
                emit(session, R"({"sessionUpdate":"agent_message_chunk","messageId":)" + quote(next_id(session, "m")) +
                                  R"(,"content":{"type":"text","text":)" +
                                  quote("The second question got " + option + ".\n") + "}}");
            });
            advance(session);
        });
}

// --- tools of the client's MCP servers ----------------------------------------------------

bool Agent::record_tool_servers(Session& s, const std::optional<std::vector<v2::McpServer>>& servers,
                                const Responder& r) {
    std::vector<ToolServer> found;
    for (const auto& server : servers.value_or(std::vector<v2::McpServer>{})) {
        ToolServer tool_server;
        if (const auto* http = server.http()) {
            tool_server.name = http->name;
            tool_server.entry = server;
        } else if (const auto* stdio = server.stdio()) {
            tool_server.name = stdio->name;
            tool_server.entry = server;
        } else if (server.tag() == "acp") {
            rapidjson::Document entry;
            entry.Parse(server.unknown()->text.c_str());
            const JsonValue* name = find_member(entry, "name");
            const JsonValue* id = find_member(entry, "serverId");
            if (name == nullptr || !name->IsString() || id == nullptr || !id->IsString() ||
                id->GetStringLength() == 0) {
                fail(r, acp::error_code::invalid_params, "an acp MCP server needs a name and a serverId");
                return false;
            }
            tool_server.name = name->GetString();
            tool_server.server_id = id->GetString();
        } else {
            continue;  // check_setup refused what was not advertised
        }
        found.push_back(std::move(tool_server));
    }
    end_tool_servers(s);
    s.tool_servers = std::move(found);  // on resume: the complete set
    return true;
}

// Ends the session's own connections (a stdio server's process with them). A turn waiting
// for one of them ends cancelled, held prompts with it: its answer will not come.
void Agent::end_tool_servers(Session& s) {
    if (s.turn && s.turn->mcp_cancel) stop_foreground(s);
    s.tool_servers.clear();
}

acp::Result<std::shared_ptr<demo::McpClient>> Agent::connect(const v2::McpServer& entry) {
    if (const auto* stdio = entry.stdio()) {
        std::vector<std::pair<std::string, std::string>> env;
        for (const auto& variable : stdio->env.value_or(std::vector<v2::EnvVariable>{})) {
            env.emplace_back(variable.name, variable.value);
        }
        auto spawned = demo::StdioMcpClient::spawn(loop_, stdio->name, stdio->command,
                                                   stdio->args.value_or(std::vector<std::string>{}), env);
        if (!spawned) return spawned.status();
        return std::shared_ptr<demo::McpClient>(std::move(spawned.value()));
    }
    const auto* http = entry.http();
    if (http == nullptr) return acp::Status(acp::Errc::unsupported, "no MCP server to connect to");
#if ACP_WITH_REMOTE
    if (!curl_multi_) {
        if (acp::Status loaded = load_remote_libraries(); !loaded) return loaded;
        curl_multi_ = CurlMulti::create(loop_);
    }
    std::vector<std::pair<std::string, std::string>> headers;
    for (const auto& header : http->headers.value_or(std::vector<v2::HttpHeader>{})) {
        headers.emplace_back(header.name, header.value);
    }
    return std::shared_ptr<demo::McpClient>(
        std::make_shared<demo::HttpMcpClient>(curl_multi_, http->name, http->url, std::move(headers)));
#else
    return acp::Status(acp::Errc::unsupported, "this build of the demo agent has no HTTP client (ACP_WITH_REMOTE=OFF)");
#endif
}

// The outcome is the response ({result} or {error}) over every transport: the carrier of
// mcp/message over ACP, the JSON-RPC response itself over HTTP and stdio.
void Agent::send_mcp(Session& s, std::size_t server_index, const std::string& method, const std::string& members,
                     McpThen then) {
    ToolServer& server = s.tool_servers[server_index];
    if (!server.server_id.empty()) return send_mcp_over_acp(s, server.server_id, method, members, std::move(then));
    if (server.client && server.client->failed()) server.client.reset();  // a new try: a new server
    if (!server.client) {
        auto connected = connect(*server.entry);
        if (!connected) return then(s, nullptr, connected.status().message());
        server.client = std::move(connected.value());
    }
    const uint64_t serial = s.turn->serial;
    const std::string session_id = s.id;
    auto id =
        server.client->request(method, "{" + members + "}",
                               [this, serial, session_id, then](const JsonValue* response, const std::string& failure) {
                                   auto it = sessions_.find(session_id);
                                   if (it == sessions_.end() || !it->second->turn || it->second->turn->serial != serial)
                                       return;
                                   Session& session = *it->second;
                                   session.turn->mcp_cancel = nullptr;
                                   then(session, response, failure);
                               });
    if (!id) return then(s, nullptr, id.status().message());
    s.turn->mcp_cancel = [client = std::weak_ptr<demo::McpClient>(server.client), id = *id] {
        if (auto alive = client.lock()) alive->cancel(id);
    };
}

void Agent::send_mcp_over_acp(Session& s, const std::string& server_id, const std::string& method,
                              const std::string& members, McpThen then) {
    const uint64_t serial = s.turn->serial;
    const std::string session_id = s.id;
    const std::string params =
        demo::mcp_message(server_id, "demo-" + s.id + "-" + std::to_string(++s.mcp_requests), method, members);
    const int64_t request = rpc_.send_request(
        "mcp/message", [params](JsonWriter& w) { write_raw_json(w, params, rapidjson::kObjectType); },
        [this, serial, session_id, then = std::move(then)](const Reply& reply) {
            auto it = sessions_.find(session_id);
            if (it == sessions_.end() || !it->second->turn || it->second->turn->serial != serial) return;
            Session& session = *it->second;
            session.turn->mcp_cancel = nullptr;
            then(session, reply.status.ok() ? reply.result : nullptr,
                 reply.status.ok() ? std::string() : reply.status.message());
        });
    s.turn->mcp_cancel = [this, request] { rpc_.cancel_request(request); };
}

// Lists each server's tools in turn; the first tool the prompt asks for (that needs no
// input) is called. A prompt that asks for none gets the usual demo turn.
void Agent::use_tools(Session& s, const std::string& text, std::size_t server_index) {
    if (server_index >= s.tool_servers.size()) {
        script_demo(s, text);
        return advance(s);
    }
    send_mcp(s, server_index, "tools/list", "",
             [this, text, server_index](Session& session, const JsonValue* outcome, const std::string& failure) {
                 if (outcome == nullptr) {
                     stream_message(session, "agent_message_chunk", next_id(session, "m"),
                                    "I cannot list the tools of " + session.tool_servers[server_index].name + ": " +
                                        failure + "\n");
                 }
                 const JsonValue* result = outcome ? find_member(*outcome, "result") : nullptr;
                 const JsonValue* tools = result ? find_member(*result, "tools") : nullptr;
                 if (tools != nullptr && tools->IsArray()) {
                     for (const auto& tool : tools->GetArray()) {
                         const JsonValue* name = find_member(tool, "name");
                         if (name == nullptr || !name->IsString() || !demo::needs_no_input(tool)) continue;
                         if (!demo::prompt_asks_for(text, name->GetString())) continue;
                         return call_tool(session, server_index, name->GetString(), "{}");
                     }
                 }
                 use_tools(session, text, server_index + 1);
             });
}

void Agent::call_tool(Session& s, std::size_t server_index, const std::string& tool, const std::string& arguments) {
    rapidjson::Document parsed;
    parsed.Parse(arguments.c_str());
    if (parsed.HasParseError() || !parsed.IsObject()) {
        stream_message(s, "agent_message_chunk", next_id(s, "m"), "The arguments of /tool must be a JSON object.");
        return advance(s);
    }
    const std::string server = s.tool_servers[server_index].name;
    const std::string tool_call = next_id(s, "tc");
    emit(s, R"({"sessionUpdate":"tool_call_update","toolCallId":)" + quote(tool_call) +
                R"(,"status":"in_progress",)"
                R"("title":)" +
                quote("Ask " + server + " for " + tool) + R"(,"name":)" + quote(tool) +
                R"(,"kind":"fetch","rawInput":)" + to_json_text(parsed) + "}");
    s.turn->open_tool_calls.insert(tool_call);
    send_mcp(s, server_index, "tools/call", R"("name":)" + quote(tool) + R"(,"arguments":)" + to_json_text(parsed),
             [this, tool_call, server, tool](Session& session, const JsonValue* outcome, const std::string& failure) {
                 const std::string text = outcome ? demo::outcome_text(*outcome) : "the call failed: " + failure;
                 session.turn->open_tool_calls.erase(tool_call);
                 emit(session, R"({"sessionUpdate":"tool_call_update","toolCallId":)" + quote(tool_call) +
                                   R"(,"status":)" + quote(outcome ? "completed" : "failed") + R"(,"rawOutput":)" +
                                   (outcome ? demo::outcome_json(*outcome) : "{}") + "}");
                 stream_message(session, "agent_message_chunk", next_id(session, "m"),
                                "The tool " + tool + " of " + server + " says: " + text);
                 advance(session);
             });
}

bool parse_options(int argc, char** argv, Options& options) {
    if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg != nullptr && *xdg != '\0') {
        options.state_dir = std::string(xdg) + "/acp-demo-agent";
    } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
        options.state_dir = std::string(home) + "/.local/state/acp-demo-agent";
    }
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "acp-demo-agent: %s needs a value\n", name);
                return nullptr;
            }
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (arg == "--state-dir") {
            const char* v = value("--state-dir");
            if (v == nullptr) return false;
            options.state_dir = v;
        } else if (arg == "--delay-ms") {
            const char* v = value("--delay-ms");
            if (v == nullptr) return false;
            options.delay_ms = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
        } else if (arg == "--protocol-version") {
            const char* v = value("--protocol-version");
            if (v == nullptr) return false;
            options.protocol_version = std::atoi(v);
        } else if (arg == "--auth-required") {
            options.auth_required = true;
        } else if (arg == "--login-terminal") {
            options.login_terminal = true;
        } else if (arg == "--minimal-caps") {
            options.minimal_caps = true;
        } else if (arg == "--hostile") {
            options.hostile = true;
        } else if (arg == "--two-permissions") {
            options.two_permissions = true;
        } else if (arg == "--mcp") {
            const char* v = value("--mcp");
            if (v == nullptr) return false;
            const std::string list = std::string(",") + v + ",";
            options.mcp_acp = list.find(",acp,") != std::string::npos;
            options.mcp_http = list.find(",http,") != std::string::npos;
            options.mcp_stdio = list.find(",stdio,") != std::string::npos;
        } else {
            std::fprintf(stderr, "acp-demo-agent: unknown argument %s\n%s", arg.c_str(), kUsage);
            return false;
        }
    }
    return true;
}

bool make_dirs(const std::string& path) {
    for (std::size_t i = 1; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/' || path[i] == '\\') {
            const std::string part = path.substr(0, i);
#if defined(_WIN32)
            if (part.size() > 2 && _mkdir(part.c_str()) != 0 && errno != EEXIST) return false;
#else
            if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
#endif
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(SIGPIPE)
    // A stdio MCP server that stops reading must not kill the agent: a failed write instead.
    std::signal(SIGPIPE, SIG_IGN);
#endif
    Options options;
    if (!parse_options(argc, argv, options)) return 2;
    if (!options.state_dir.empty() && !make_dirs(options.state_dir)) {
        std::fprintf(stderr, "acp-demo-agent: cannot create %s: %s\n", options.state_dir.c_str(), std::strerror(errno));
        return 2;
    }
    // The terminal auth method (CLIENT-GUIDE 2.3): run by the user in a terminal, it
    // leaves a mark that later agent processes on the same state directory accept.
    const std::string login_mark = options.state_dir + "/logged-in";
    if (options.login_terminal) {
        const char* user = std::getenv("DEMO_LOGIN_USER");
        std::ofstream(login_mark) << (user != nullptr ? user : "") << "\n";
        std::printf("acp-demo-agent: logged in as %s\n", user != nullptr ? user : "(nobody)");
        return 0;
    }
    if (options.auth_required && std::ifstream(login_mark).good()) options.logged_in = true;
    uv_loop_t* loop = uv_default_loop();
    acp::AdoptedFds fds;
    // Duplicates, so libacp owns (and closes) descriptors of its own; close-on-exec, so the
    // stdio MCP servers it starts do not hold the ACP pipes.
#if defined(_WIN32)
    // The C runtime's descriptors of the standard handles, in binary mode (no CRLF added).
    _setmode(0, _O_BINARY);
    _setmode(1, _O_BINARY);
    fds.read_fd = _dup(0);
    fds.write_fd = _dup(1);
#else
    fds.read_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    fds.write_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
#endif
    auto transport = FdTransport::adopt(loop, fds, Logger());
    if (!transport) {
        std::fprintf(stderr, "acp-demo-agent: %s\n", transport.status().to_string().c_str());
        return 1;
    }
    {
        Agent agent(loop, options, std::move(transport.value()));
        if (!agent.load_state()) return 2;
        agent.start();
        uv_run(loop, UV_RUN_DEFAULT);
    }
    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    return 0;
}
