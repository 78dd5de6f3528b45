// SPDX-License-Identifier: Apache-2.0
// The supervised agent process, against real child processes (tests/peers/scripted_peer).
#include <dirent.h>
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "jsonrpc/connection.hpp"
#include "support/test_loop.hpp"
#include "transport/process_transport.hpp"

using namespace acp::detail;
using acp::Errc;

namespace {

// Orphaned grandchildren are re-parented to this test process instead of init, so the
// test can see that they were killed (and reap them).
struct BecomeSubreaper {
    BecomeSubreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1); }
} become_subreaper;

bool process_gone(int pid) { return kill(pid, 0) == -1 && errno == ESRCH; }

int parent_of(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    auto close_paren = line.rfind(')');
    if (close_paren == std::string::npos) return -1;
    std::istringstream fields(line.substr(close_paren + 1));
    char state = 0;
    int parent = -1;
    fields >> state >> parent;
    return parent;
}

// A re-parented grandchild: wait until it died (and reap it), or report it alive.
bool grandchild_killed(int pid, acp::test::TestLoop& loop) {
    return loop.run_until([pid] {
        int status = 0;
        pid_t reaped = waitpid(pid, &status, WNOHANG);
        if (reaped == pid) return WIFSIGNALED(status) || WIFEXITED(status);
        return reaped == -1 && process_gone(pid);
    });
}

struct AgentHarness {
    acp::test::TestLoop loop;
    std::vector<std::string> stderr_lines;
    std::vector<std::string> log;
    std::unique_ptr<Connection> rpc;
    std::optional<acp::Status> closed;
    int pid = 0;

    acp::Status spawn(std::vector<std::string> extra_args = {}, acp::SpawnOptions options = {}) {
        options.argv.insert(options.argv.begin(), ACP_SCRIPTED_PEER);
        for (auto& arg : extra_args) options.argv.push_back(arg);
        if (options.shutdown_grace.count() == 2000) options.shutdown_grace = std::chrono::milliseconds(300);
        if (options.terminate_grace.count() == 2000) options.terminate_grace = std::chrono::milliseconds(300);
        Logger logger([this](const acp::LogRecord& r) {
            if (r.source == acp::log_source::agent_stderr) {
                stderr_lines.emplace_back(r.message);
            } else {
                log.emplace_back(r.message);
            }
        });
        auto transport = ProcessTransport::spawn(loop.get(), options, logger);
        if (!transport) return transport.status();
        pid = transport.value()->pid();
        rpc = std::make_unique<Connection>(loop.get(), std::move(transport.value()), logger);
        rpc->on_closed([this](const acp::Status& why) { closed = why; });
        rpc->start();
        return acp::Status();
    }

    // Sends a request and runs the loop until it completes.
    Reply call(const std::string& method, const std::string& params_json = "{}") {
        std::optional<acp::Status> status;
        std::string result;
        rpc->send_request(
            method, [&](JsonWriter& w) { w.RawValue(params_json.data(), params_json.size(), rapidjson::kObjectType); },
            [&](const Reply& r) {
                status = r.status;
                if (r.result) result = to_json_text(*r.result);
            });
        loop.run_until([&] { return status.has_value(); });
        last_result = result;
        return Reply{status.value_or(acp::Status(Errc::internal, "no reply in time")), nullptr};
    }
    std::string last_result;
};

}  // namespace

TEST_CASE("process: spawn failures are clear errors, not crashes") {
    acp::test::TestLoop loop;
    acp::SpawnOptions options;

    options.argv = {"definitely-not-an-agent-xyz"};
    auto missing = ProcessTransport::spawn(loop.get(), options, Logger());
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().code() == Errc::spawn_failed);
    CHECK(missing.status().message().find("'definitely-not-an-agent-xyz' was not found on PATH") != std::string::npos);

    char plain_file[] = "/tmp/acp-not-executable-XXXXXX";
    int fd = mkstemp(plain_file);
    REQUIRE(fd >= 0);
    close(fd);
    chmod(plain_file, 0644);
    options.argv = {plain_file};
    auto not_executable = ProcessTransport::spawn(loop.get(), options, Logger());
    REQUIRE_FALSE(not_executable.ok());
    CHECK(not_executable.status().message().find("not an executable file") != std::string::npos);
    unlink(plain_file);

    options.argv = {ACP_SCRIPTED_PEER};
    options.cwd = "/no/such/directory";
    auto bad_cwd = ProcessTransport::spawn(loop.get(), options, Logger());
    REQUIRE_FALSE(bad_cwd.ok());
    CHECK(bad_cwd.status().message().find("working directory '/no/such/directory'") != std::string::npos);

    options.argv.clear();
    options.cwd.clear();
    CHECK(ProcessTransport::spawn(loop.get(), options, Logger()).status().code() == Errc::spawn_failed);
}

TEST_CASE("process: argv, cwd and environment (inherited + overrides - removals) reach the agent") {
    setenv("ACP_TEST_INHERITED", "from-host", 1);
    setenv("ACP_TEST_REMOVED", "should-vanish", 1);
    setenv("ACP_TEST_OVERRIDDEN", "old", 1);
    AgentHarness h;
    acp::SpawnOptions options;
    options.cwd = "/tmp";
    options.env_set = {{"ACP_TEST_OVERRIDDEN", "new"},
                       {"ACP_TEST_ADDED", "a b; `not a shell` && *"},
                       {"ACP_TEST_TWICE", "first"},
                       {"ACP_TEST_TWICE", "last"}};
    options.env_unset = {"ACP_TEST_REMOVED"};
    REQUIRE(h.spawn({}, options).ok());
    CHECK(h.call("getenv", R"({"name":"ACP_TEST_INHERITED"})").status.ok());
    CHECK(h.last_result == R"({"value":"from-host"})");
    h.call("getenv", R"({"name":"ACP_TEST_REMOVED"})");
    CHECK(h.last_result == R"({"value":null})");
    h.call("getenv", R"({"name":"ACP_TEST_OVERRIDDEN"})");
    CHECK(h.last_result == R"({"value":"new"})");
    h.call("getenv", R"({"name":"ACP_TEST_ADDED"})");
    CHECK(h.last_result == R"({"value":"a b; `not a shell` && *"})");
    h.call("getenv", R"({"name":"ACP_TEST_TWICE"})");
    CHECK(h.last_result == R"({"value":"last"})");  // one entry: getenv would find the first
    h.call("getcwd");
    CHECK(h.last_result == R"({"cwd":"/tmp"})");
    // Its own process group, so the whole group can be signalled.
    CHECK(getpgid(h.pid) == h.pid);
    h.rpc->close();
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }));
    CHECK(h.closed->agent_exit()->requested);
    CHECK(h.closed->agent_exit()->exit_code == 0);
    CHECK(process_gone(h.pid));
}

TEST_CASE("process: an agent that exits mid-request fails the request with its exit code and stderr") {
    AgentHarness h;
    REQUIRE(h.spawn().ok());
    std::optional<acp::Status> other;
    std::optional<acp::Status> first;
    h.rpc->send_request(
        "exit_now",
        [](JsonWriter& w) {
            w.StartObject();
            w.Key("code");
            w.Int(3);
            w.EndObject();
        },
        [&](const Reply& r) { first = r.status; });
    // Sent before the exit is noticed: it is pending when the agent dies.
    h.rpc->send_request("echo", nullptr, [&](const Reply& r) { other = r.status; });
    REQUIRE(h.loop.run_until([&] { return first.has_value(); }));
    Reply reply{*first, nullptr};
    CHECK(reply.status.code() == Errc::connection_closed);
    const acp::AgentExit* exit = reply.status.agent_exit();
    REQUIRE(exit != nullptr);
    CHECK(exit->exited);
    CHECK(exit->exit_code == 3);
    CHECK(exit->term_signal == 0);
    CHECK_FALSE(exit->requested);
    CHECK(exit->stderr_tail.find("exiting with code 3") != std::string::npos);
    CHECK(reply.status.message().find("exited with code 3 unexpectedly") != std::string::npos);
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value() && other.has_value(); }));
    CHECK(other->code() == Errc::connection_closed);
    CHECK(process_gone(h.pid));
}

TEST_CASE("process: megabytes of stderr never block the agent - lines reach the log, the tail is kept") {
    AgentHarness h;
    acp::SpawnOptions options;
    options.stderr_tail_bytes = 1000;
    REQUIRE(h.spawn({"--stderr-on-exit", "last words"}, options).ok());
    Reply reply = h.call("flood_stderr", R"({"bytes":8388608})");
    REQUIRE(reply.status.ok());
    CHECK(h.last_result == R"({"flooded":8388608})");
    CHECK(h.loop.run_until([&] { return h.stderr_lines.size() >= 8388608 / 100; }));
    CHECK(h.stderr_lines.front() == std::string(99, 'e'));
    h.rpc->close();
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }));
    const std::string& tail = h.closed->agent_exit()->stderr_tail;
    CHECK(tail.size() == 1000);
    CHECK(tail.find("last words\n") == tail.size() - std::string("last words\n").size());
    CHECK(h.stderr_lines.back() == "last words");
}

TEST_CASE("process: garbage and an oversized line between valid messages are reported, not fatal") {
    AgentHarness h;
    REQUIRE(h.spawn().ok());
    Reply reply = h.call("garbage", R"({"size":40000000})");  // over the default 32 MiB limit
    REQUIRE(reply.status.ok());
    CHECK(h.last_result == R"({"after_garbage":true})");
    auto logged = [&](const std::string& fragment) {
        for (const auto& line : h.log) {
            if (line.find(fragment) != std::string::npos) return true;
        }
        return false;
    };
    CHECK(logged("malformed message"));
    CHECK(logged("discarded an incoming line of 40000000 bytes"));
    CHECK(h.call("echo", R"({"still":"working"})").status.ok());
    CHECK(h.last_result == R"({"still":"working"})");
}

TEST_CASE("process: an agent that ignores SIGTERM is killed by the ladder - nothing is left") {
    AgentHarness h;
    REQUIRE(h.spawn({"--ignore-stdin-eof"}).ok());
    REQUIRE(h.call("ignore_sigterm").status.ok());
    h.rpc->close();
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }));
    REQUIRE(h.closed->agent_exit() != nullptr);
    CHECK(h.closed->agent_exit()->term_signal == SIGKILL);
    CHECK(h.closed->agent_exit()->requested);
    CHECK(process_gone(h.pid));
}

TEST_CASE("process: hasten_close takes the ladder's next step now, not after its grace") {
    AgentHarness h;
    acp::SpawnOptions options;
    // Graces no test waits out: only hasten_close can end this agent in time.
    options.shutdown_grace = std::chrono::minutes(10);
    options.terminate_grace = std::chrono::minutes(10);
    REQUIRE(h.spawn({"--ignore-stdin-eof"}, options).ok());
    REQUIRE(h.call("ignore_sigterm").status.ok());
    h.rpc->hasten_close();  // nothing closed yet: this is close(), stdin closed
    h.loop.run_for(std::chrono::milliseconds(100));
    CHECK_FALSE(h.closed.has_value());
    h.rpc->hasten_close();  // terminate: ignored
    h.loop.run_for(std::chrono::milliseconds(100));
    CHECK_FALSE(h.closed.has_value());
    h.rpc->hasten_close();  // the tree killed
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }, std::chrono::milliseconds(30000)));
    REQUIRE(h.closed->agent_exit() != nullptr);
    CHECK(h.closed->agent_exit()->term_signal == SIGKILL);
    CHECK(h.closed->agent_exit()->requested);
    CHECK(process_gone(h.pid));
    h.rpc->hasten_close();  // after the end: nothing
}

TEST_CASE("process: an agent that ignores stdin EOF gets SIGTERM") {
    AgentHarness h;
    REQUIRE(h.spawn({"--ignore-stdin-eof"}).ok());
    h.rpc->close();
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }));
    CHECK(h.closed->agent_exit()->term_signal == SIGTERM);
    CHECK(process_gone(h.pid));
}

TEST_CASE("process: grandchildren the agent started do not outlive it") {
    AgentHarness h;
    REQUIRE(h.spawn().ok());
    REQUIRE(h.call("spawn_grandchild").status.ok());
    const int grandchild = std::stoi(h.last_result.substr(h.last_result.find(':') + 1));
    REQUIRE(grandchild > 0);
    CHECK(kill(grandchild, 0) == 0);
    // In the agent's process group, which the agent leads.
    CHECK(getpgid(grandchild) == parent_of(grandchild));
#if ACP_PLATFORM_LINUX
    CHECK(getpgid(grandchild) != h.pid);  // h.pid is the agent guard, the agent's parent
#else
    CHECK(getpgid(grandchild) == h.pid);  // no process between the host and the agent
#endif
    h.rpc->close();
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }));
    CHECK(h.closed->agent_exit()->exit_code == 0);
    CHECK(process_gone(h.pid));
    CHECK(grandchild_killed(grandchild, h.loop));
}

TEST_CASE("process: a grandchild left behind by an agent that crashed is terminated too") {
    AgentHarness h;
    REQUIRE(h.spawn().ok());
    REQUIRE(h.call("spawn_grandchild").status.ok());
    const int grandchild = std::stoi(h.last_result.substr(h.last_result.find(':') + 1));
    Reply reply = h.call("exit_now", R"({"code":1})");
    CHECK(reply.status.code() == Errc::connection_closed);
    CHECK(grandchild_killed(grandchild, h.loop));
}

TEST_CASE("process: an agent killed by a signal is reported with the signal") {
    AgentHarness h;
    REQUIRE(h.spawn().ok());
    std::optional<acp::Status> pending;
    h.rpc->send_request(
        "delay",
        [](JsonWriter& w) {
            w.StartObject();
            w.Key("ms");
            w.Int(60000);
            w.EndObject();
        },
        [&](const Reply& r) { pending = r.status; });
    h.loop.run_for(std::chrono::milliseconds(50));
    kill(h.pid, SIGUSR2);  // not SIGSEGV: sanitizer runtimes catch that one
    REQUIRE(h.loop.run_until([&] { return pending.has_value(); }));
    CHECK(pending->code() == Errc::connection_closed);
    REQUIRE(pending->agent_exit() != nullptr);
    CHECK(pending->agent_exit()->term_signal == SIGUSR2);
    CHECK(pending->message().find("killed by signal") != std::string::npos);
}

TEST_CASE("process: destroying the connection with the agent running still shuts it down") {
    acp::test::TestLoop loop;
    acp::SpawnOptions options;
    options.argv = {ACP_SCRIPTED_PEER, "--ignore-stdin-eof"};
    options.shutdown_grace = std::chrono::milliseconds(100);
    options.terminate_grace = std::chrono::milliseconds(100);
    auto transport = ProcessTransport::spawn(loop.get(), options, Logger());
    REQUIRE(transport.ok());
    const int pid = transport.value()->pid();
    {
        Connection rpc(loop.get(), std::move(transport.value()), Logger());
        rpc.start();
    }
    CHECK(loop.run_until([&] { return process_gone(pid); }));
}

TEST_CASE("process: a normal exit is not mistaken for an agent that closed stdout and kept running") {
    AgentHarness h;
    REQUIRE(h.spawn().ok());
    h.call("exit_now", R"({"code":0})");
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }));
    h.loop.run_for(std::chrono::milliseconds(50));
    for (const auto& line : h.log) CHECK(line.find("keeps running") == std::string::npos);
}

TEST_CASE("process: a relative program is found relative to a relative working directory") {
    // The child changes to cwd before it executes the program, so both are relative to it.
    char scratch[] = "/tmp/acp-relative-XXXXXX";
    REQUIRE(mkdtemp(scratch) != nullptr);
    const std::string sub = std::string(scratch) + "/sub";
    REQUIRE(mkdir(sub.c_str(), 0755) == 0);
    REQUIRE(symlink(ACP_SCRIPTED_PEER, (sub + "/agent").c_str()) == 0);
    char previous[4096];
    REQUIRE(getcwd(previous, sizeof previous) != nullptr);
    REQUIRE(chdir(scratch) == 0);
    {
        AgentHarness h;
        acp::SpawnOptions options;
        options.argv = {"./agent"};
        options.cwd = "sub";
        auto transport = ProcessTransport::spawn(h.loop.get(), options, Logger());
        CHECK(transport.ok());
        if (!transport.ok()) INFO(transport.status().message());
    }
    REQUIRE(chdir(previous) == 0);
    unlink((sub + "/agent").c_str());
    rmdir(sub.c_str());
    rmdir(scratch);
}

TEST_CASE("process: an agent that ended before the connection started is still reported") {
    acp::test::TestLoop loop;
    acp::SpawnOptions options;
    options.argv = {"sh", "-c", "echo going away >&2; exit 7"};
    auto transport = ProcessTransport::spawn(loop.get(), options, Logger());
    REQUIRE(transport.ok());
    Connection rpc(loop.get(), std::move(transport.value()), Logger());
    loop.run_for(std::chrono::milliseconds(1500));  // exit seen, pipes drained, all before start()
    std::optional<acp::Status> closed;
    rpc.on_closed([&](const acp::Status& why) { closed = why; });
    rpc.start();
    CHECK_FALSE(closed.has_value());  // never inside start()
    REQUIRE(loop.run_until([&] { return closed.has_value(); }));
    REQUIRE(closed->agent_exit() != nullptr);
    CHECK(closed->agent_exit()->exit_code == 7);
    CHECK(closed->agent_exit()->stderr_tail == "going away\n");
}

#if !ACP_PLATFORM_LINUX
namespace {

// The portable variant's supervising process: orphaned on purpose, so re-parented to this
// test (a subreaper), in a session of its own, and not the agent.
int supervisor_of(int agent_pid) {
    int found = 0;
    DIR* proc = opendir("/proc");
    for (dirent* entry = proc != nullptr ? readdir(proc) : nullptr; entry != nullptr; entry = readdir(proc)) {
        int pid = std::atoi(entry->d_name);
        if (pid <= 0 || pid == agent_pid || parent_of(pid) != getpid() || getsid(pid) != pid) continue;
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        std::getline(stat, line);
        auto close_paren = line.rfind(')');
        if (close_paren != std::string::npos && line.compare(close_paren, 4, ") Z ") != 0) found = pid;
    }
    if (proc != nullptr) closedir(proc);
    return found;
}

}  // namespace

// What the Linux variant's guard attack tests check, for the portable variant's
// supervisor: killing it frees nothing.
TEST_CASE("process: an agent whose supervising process is killed goes with its group, and the host is told") {
    AgentHarness h;
    REQUIRE(h.spawn().ok());
    int supervisor = 0;  // found once it has made its own session, which may take a moment
    REQUIRE(h.loop.run_until([&] { return (supervisor = supervisor_of(h.pid)) > 0; }));
    kill(supervisor, SIGKILL);
    REQUIRE(h.loop.run_until([&] { return h.closed.has_value(); }));
    REQUIRE(h.closed->agent_exit() != nullptr);
    CHECK(h.closed->agent_exit()->term_signal == SIGKILL);
    CHECK(h.closed->agent_exit()->guard_report.find("the supervising process ended before the agent") == 0);
    CHECK(process_gone(h.pid));
    waitpid(supervisor, nullptr, 0);
}
#endif
