// SPDX-License-Identifier: Apache-2.0
// acp/fs_guard.hpp: the paths a v1 agent names are confined to the session's roots, and
// the ready-made fs handlers serve only those (docs/v1.md, "Serving files safely").
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "acp/error_codes.hpp"
#include "acp/fs_guard.hpp"
#include "unit/client/scripted_client.hpp"

using acp::ConfinedFilesOptions;
using acp::PathUse;
using acp::Result;
using acp::SessionRoots;
using acp::test::Scripted;
namespace v2 = acp::v2;
namespace error_code = acp::error_code;

namespace {

void write_file(const std::string& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary);
    out << content;
    REQUIRE(out.good());
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
}

// base/project (the cwd), base/extra (an additional directory), base/secret.txt outside
// both, and links from the project to inside and to outside.
struct Tree {
    Tree() {
        char path[] = "/tmp/acp-fs-guard-XXXXXX";
        REQUIRE(mkdtemp(path) != nullptr);
        char* real = realpath(path, nullptr);
        REQUIRE(real != nullptr);
        base = real;
        std::free(real);
        project = base + "/project";
        extra = base + "/extra";
        REQUIRE(mkdir(project.c_str(), 0700) == 0);
        REQUIRE(mkdir(extra.c_str(), 0700) == 0);
        REQUIRE(mkdir((base + "/project-evil").c_str(), 0700) == 0);
        write_file(project + "/in.txt", "one\ntwo\nthree\n");
        write_file(extra + "/notes.txt", "notes");
        write_file(base + "/secret.txt", "top secret");
        write_file(base + "/project-evil/x.txt", "x");
        REQUIRE(symlink((base + "/secret.txt").c_str(), (project + "/link-out").c_str()) == 0);
        REQUIRE(symlink(base.c_str(), (project + "/dir-out").c_str()) == 0);
        REQUIRE(symlink((project + "/in.txt").c_str(), (project + "/link-in").c_str()) == 0);
    }
    ~Tree() { (void)std::system(("rm -rf '" + base + "'").c_str()); }

    SessionRoots roots() const { return SessionRoots{project, {extra}}; }

    std::string base;
    std::string project;
    std::string extra;
};

int refusal_code(const acp::Result<std::string>& result) {
    REQUIRE_FALSE(result.ok());
    return result.status().rpc_code();
}

}  // namespace

TEST_CASE("fs guard: a relative path is refused") {
    Tree tree;
    CHECK(refusal_code(acp::confine_path(tree.roots(), "in.txt", PathUse::read)) == error_code::invalid_params);
    CHECK(refusal_code(acp::confine_path(tree.roots(), "./in.txt", PathUse::write)) == error_code::invalid_params);
    CHECK(refusal_code(acp::confine_path(tree.roots(), "", PathUse::read)) == error_code::invalid_params);
    auto refused = acp::confine_path(tree.roots(), "in.txt", PathUse::read);
    CHECK(refused.status().message().find("absolute") != std::string::npos);
}

TEST_CASE("fs guard: ../ escapes are refused, existing or not, and a sibling with the same prefix is outside") {
    Tree tree;
    for (PathUse use : {PathUse::read, PathUse::write}) {
        CHECK(refusal_code(acp::confine_path(tree.roots(), tree.project + "/../secret.txt", use)) ==
              error_code::invalid_params);
        CHECK(refusal_code(acp::confine_path(tree.roots(), tree.project + "/missing/../../secret.txt", use)) ==
              error_code::invalid_params);
        CHECK(refusal_code(acp::confine_path(tree.roots(), tree.project + "-evil/x.txt", use)) ==
              error_code::invalid_params);
        CHECK(refusal_code(acp::confine_path(tree.roots(), "/etc/passwd", use)) == error_code::invalid_params);
    }
    auto refused = acp::confine_path(tree.roots(), tree.project + "/../secret.txt", PathUse::read);
    CHECK(refused.status().message().find("outside the session's directories") != std::string::npos);
    // `..` that stays inside is fine.
    auto inside = acp::confine_path(tree.roots(), tree.project + "/../project/in.txt", PathUse::read);
    REQUIRE(inside.ok());
    CHECK(*inside == tree.project + "/in.txt");
}

TEST_CASE("fs guard: symlinks are followed to where they lead: out is refused, in is served") {
    Tree tree;
    for (PathUse use : {PathUse::read, PathUse::write}) {
        CHECK(refusal_code(acp::confine_path(tree.roots(), tree.project + "/link-out", use)) ==
              error_code::invalid_params);
        CHECK(refusal_code(acp::confine_path(tree.roots(), tree.project + "/dir-out/secret.txt", use)) ==
              error_code::invalid_params);
        // A new file below a link to outside is outside too.
        CHECK(refusal_code(acp::confine_path(tree.roots(), tree.project + "/dir-out/new/file.txt", use)) ==
              error_code::invalid_params);
    }
    auto in = acp::confine_path(tree.roots(), tree.project + "/link-in", PathUse::read);
    REQUIRE(in.ok());
    CHECK(*in == tree.project + "/in.txt");
}

TEST_CASE("fs guard: a file inside an additional directory is accepted - missing files are told apart") {
    Tree tree;
    auto notes = acp::confine_path(tree.roots(), tree.extra + "/notes.txt", PathUse::read);
    REQUIRE_MESSAGE(notes.ok(), notes.status().to_string());
    CHECK(*notes == tree.extra + "/notes.txt");
    // Without the additional directory the same file is outside.
    CHECK(refusal_code(acp::confine_path(SessionRoots{tree.project, {}}, tree.extra + "/notes.txt", PathUse::read)) ==
          error_code::invalid_params);
    // Inside and missing: not found to read, fine to write (with new directories).
    CHECK(refusal_code(acp::confine_path(tree.roots(), tree.project + "/nope.txt", PathUse::read)) ==
          error_code::resource_not_found);
    auto created = acp::confine_path(tree.roots(), tree.project + "/new/dir/file.txt", PathUse::write);
    REQUIRE(created.ok());
    CHECK(*created == tree.project + "/new/dir/file.txt");
    // A NUL would cut the path short in every system call.
    CHECK(refusal_code(acp::confine_path(tree.roots(), tree.project + std::string("/in.txt\0/x", 10), PathUse::read)) ==
          error_code::invalid_params);
}

namespace {

// A client talking to a scripted v1 agent that advertises additional directories, with
// the confined fs handlers installed and one session opened on the tree.
struct V1Files {
    explicit V1Files(const Tree& tree, ConfinedFilesOptions options = {}) {
        acp::serve_confined_files(*s.client, options);
        std::optional<Result<v2::InitializeResponse>> done;
        s.client->initialize([&](Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
        const std::string v1_answer =
            R"({"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"additionalDirectories":{},"close":{},"list":{},"resume":{}}}})";
        s.answer_next(v1_answer);
        const std::size_t v1_request = s.agent->lines.size();
        s.answer_next(v1_answer);
        REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
        REQUIRE_MESSAGE(done->ok(), done->status().to_string());
        auto init = s.agent->parsed(v1_request);
        CHECK(init["params"]["clientCapabilities"]["fs"]["readTextFile"].GetBool());
        CHECK(init["params"]["clientCapabilities"]["fs"]["writeTextFile"].GetBool());
        const auto& capabilities = init["params"]["clientCapabilities"];
        terminal_advertised = capabilities.HasMember("terminal") && capabilities["terminal"].IsTrue();

        v2::NewSessionRequest request;
        request.cwd = tree.project;
        request.additionalDirectories = std::vector<std::string>{tree.extra};
        std::optional<Result<v2::NewSessionResponse>> created;
        s.client->new_session(request, [&](Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
        s.answer_next(R"({"sessionId":"s-1"})");
        REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
        REQUIRE(created->ok());
    }

    // Sends one request of the agent's and returns the client's answer.
    rapidjson::Document call(const std::string& method, const std::string& params) {
        const std::size_t before = s.agent->lines.size();
        s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(++next_id) + R"(,"method":")" + method +
                           R"(","params":)" + params + "}");
        REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > before; }));
        return s.agent->parsed(before);
    }
    rapidjson::Document read(const std::string& path, const std::string& more = "",
                             const std::string& session = "s-1") {
        return call("fs/read_text_file", R"({"sessionId":")" + session + R"(","path":")" + path + "\"" + more + "}");
    }
    rapidjson::Document write(const std::string& path, const std::string& content) {
        return call("fs/write_text_file",
                    R"({"sessionId":"s-1","path":")" + path + R"(","content":")" + content + "\"}");
    }

    Scripted s;
    int next_id = 100;
    bool terminal_advertised = true;
};

int error_of(const rapidjson::Document& answer) {
    REQUIRE(answer.HasMember("error"));
    return answer["error"]["code"].GetInt();
}

std::string content_of(const rapidjson::Document& answer) {
    REQUIRE_MESSAGE(answer.HasMember("result"),
                    (answer.HasMember("error") ? answer["error"]["message"].GetString() : ""));
    return answer["result"]["content"].GetString();
}

}  // namespace

TEST_CASE("fs guard: the ready-made handlers serve a v1 agent inside the roots, with line and limit") {
    Tree tree;
    V1Files files(tree);
    CHECK(content_of(files.read(tree.project + "/in.txt")) == "one\ntwo\nthree\n");
    CHECK(content_of(files.read(tree.project + "/in.txt", R"(,"line":2,"limit":1)")) == "two\n");
    CHECK(content_of(files.read(tree.project + "/in.txt", R"(,"line":3)")) == "three\n");
    CHECK(content_of(files.read(tree.project + "/in.txt", R"(,"line":9)")).empty());
    CHECK(content_of(files.read(tree.extra + "/notes.txt")) == "notes");
    CHECK(error_of(files.read(tree.project + "/in.txt", R"(,"line":0)")) == error_code::invalid_params);
    CHECK(error_of(files.read(tree.project + "/nope.txt")) == error_code::resource_not_found);

    auto written = files.write(tree.project + "/new/dir/out.txt", "hello\\nworld");
    CHECK(written.HasMember("result"));
    CHECK(read_file(tree.project + "/new/dir/out.txt") == "hello\nworld");
}

TEST_CASE("fs guard: the ready-made handlers refuse escapes, links out, relative paths and foreign sessions") {
    Tree tree;
    V1Files files(tree);
    CHECK(error_of(files.read(tree.project + "/../secret.txt")) == error_code::invalid_params);
    CHECK(error_of(files.read(tree.project + "/link-out")) == error_code::invalid_params);
    CHECK(error_of(files.read("in.txt")) == error_code::invalid_params);
    // A session id this client never opened: refused before any handler runs.
    CHECK(error_of(files.read(tree.project + "/in.txt", "", "someone-elses")) == error_code::resource_not_found);

    CHECK(error_of(files.write(tree.project + "/link-out", "pwned")) == error_code::invalid_params);
    CHECK(error_of(files.write(tree.project + "/dir-out/planted.txt", "pwned")) == error_code::invalid_params);
    CHECK(error_of(files.write(tree.project + "/missing/../../planted.txt", "pwned")) == error_code::invalid_params);
    CHECK(read_file(tree.base + "/secret.txt") == "top secret");
    CHECK(access((tree.base + "/planted.txt").c_str(), F_OK) != 0);
    auto message = files.write(tree.project + "/link-out", "pwned");
    CHECK(std::string(message["error"]["message"].GetString()).find("outside") != std::string::npos);
}

TEST_CASE("fs guard: a closed session's files are no longer served - the size cap holds") {
    Tree tree;
    ConfinedFilesOptions options;
    options.max_file_bytes = 8;
    V1Files files(tree, options);
    // "one\ntwo\nthree\n" is 14 bytes: whole it is too large, its first two lines are not.
    CHECK(error_of(files.read(tree.project + "/in.txt")) == error_code::invalid_params);
    CHECK(content_of(files.read(tree.project + "/in.txt", R"(,"limit":2)")) == "one\ntwo\n");
    CHECK(error_of(files.write(tree.project + "/big.txt", "123456789")) == error_code::invalid_params);
    CHECK(acp::confine_path(*files.s.client, "s-1", tree.project + "/in.txt", PathUse::read).ok());
    CHECK(refusal_code(acp::confine_path(*files.s.client, "s-2", tree.project + "/in.txt", PathUse::read)) ==
          error_code::resource_not_found);

    std::optional<Result<v2::CloseSessionResponse>> closed;
    files.s.client->close_session("s-1", [&](Result<v2::CloseSessionResponse> r) { closed.emplace(std::move(r)); });
    files.s.answer_next("{}");
    REQUIRE(files.s.loop.run_until([&] { return closed.has_value(); }));
    REQUIRE(closed->ok());
    CHECK_FALSE(files.s.client->session_roots("s-1").has_value());
    CHECK(refusal_code(acp::confine_path(*files.s.client, "s-1", tree.project + "/in.txt", PathUse::read)) ==
          error_code::resource_not_found);
}

TEST_CASE("fs guard: terminal/create never runs anything without the host's handler") {
    // libacp has no terminal implementation of its own: a command reaches a process only
    // through a host's TerminalHandlers::create, which decides.
    Tree tree;
    V1Files files(tree);
    const std::string marker = tree.base + "/ran";
    auto answer =
        files.call("terminal/create", R"({"sessionId":"s-1","command":"/usr/bin/touch","args":[")" + marker + R"("]})");
    CHECK(error_of(answer) == -32601);
    CHECK(access(marker.c_str(), F_OK) != 0);
    CHECK_FALSE(files.terminal_advertised);
}

TEST_CASE("fs guard: the roots are what the host sent in session/new and session/resume, never what a list says") {
    Tree tree;
    V1Files files(tree);
    // The agent lists a session of its own with cwd "/" and claims new roots for s-1.
    std::optional<Result<v2::ListSessionsResponse>> listed;
    files.s.client->list_sessions({}, [&](Result<v2::ListSessionsResponse> r) { listed.emplace(std::move(r)); });
    files.s.answer_next(
        R"({"sessions":[{"sessionId":"s-x","cwd":"/"},{"sessionId":"s-1","cwd":"/","additionalDirectories":["/etc"]}]})");
    REQUIRE(files.s.loop.run_until([&] { return listed.has_value(); }));
    REQUIRE_MESSAGE(listed->ok(), listed->status().to_string());
    CHECK_FALSE(files.s.client->session_roots("s-x").has_value());
    CHECK(error_of(files.read(tree.base + "/secret.txt", "", "s-x")) == error_code::resource_not_found);
    REQUIRE(files.s.client->session_roots("s-1").has_value());
    CHECK(files.s.client->session_roots("s-1")->cwd == tree.project);
    CHECK(error_of(files.read("/etc/hostname")) == error_code::invalid_params);

    // A resume by the host with other roots replaces them.
    v2::ResumeSessionRequest resume;
    resume.sessionId = "s-1";
    resume.cwd = tree.extra;
    std::optional<Result<v2::ResumeSessionResponse>> resumed;
    files.s.client->resume_session(resume, [&](Result<v2::ResumeSessionResponse> r) { resumed.emplace(std::move(r)); });
    files.s.answer_next("{}");
    REQUIRE(files.s.loop.run_until([&] { return resumed.has_value(); }));
    REQUIRE_MESSAGE(resumed->ok(), resumed->status().to_string());
    REQUIRE(files.s.client->session_roots("s-1").has_value());
    CHECK(files.s.client->session_roots("s-1")->cwd == tree.extra);
    CHECK(files.s.client->session_roots("s-1")->additional_directories.empty());
    CHECK(content_of(files.read(tree.extra + "/notes.txt")) == "notes");
    CHECK(error_of(files.read(tree.project + "/in.txt")) == error_code::invalid_params);
}
