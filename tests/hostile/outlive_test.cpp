// SPDX-License-Identifier: Apache-2.0
// No agent outlives its host (docs/untrusted-agent.md): neither the agent nor the
// descendants it detached with setsid() survive the client's close or the host's death
// (tests/peers/hostile_agent setsid-children), on the public API.
#include <doctest/doctest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "acp/client.hpp"
#include "hostile/hostile_agent_util.hpp"
#include "support/test_loop.hpp"

extern char** environ;

namespace {

// What a hostile agent mode starts: the agent and two descendants (one orphaned, both or
// one ignoring SIGTERM).
struct AgentTree {
    const char* mode;
    std::vector<const char*> roles;
};
// Descendants that left the agent's process group and session with setsid(): only the
// Linux guard finds them (a subreaper and /proc); the portable POSIX variant stops the
// agent's process group (docs/untrusted-agent.md).
const AgentTree kSetsidTree = {"setsid-children", {"agent", "setsid-child", "orphan-ignoring-sigterm"}};
// Descendants that stay in the agent's process group: every variant stops them.
const AgentTree kGroupTree = {"group-children",
                              {"agent", "group-child-ignoring-sigterm", "group-orphan-ignoring-sigterm"}};

bool all_started(const acp::test::PidFile& pids, const AgentTree& tree) {
    for (const char* role : tree.roles) {
        if (pids.pid_of(role) == 0) return false;
    }
    return true;
}

std::string survivors(const acp::test::PidFile& pids) {
    std::string alive;
    for (const auto& entry : pids.read()) {
        if (acp::test::process_alive(entry.second)) alive += entry.first + " " + std::to_string(entry.second) + "; ";
    }
    return alive;
}

// Waits (bounded) for every recorded process to be gone; returns who is still alive.
std::string wait_for_none_alive(const acp::test::PidFile& pids) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::string alive = survivors(pids);
    while (!alive.empty() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        alive = survivors(pids);
    }
    return alive;
}

// A failed test leaves no stray processes behind.
void kill_recorded(const acp::test::PidFile& pids) {
    for (const auto& entry : pids.read()) {
        if (acp::test::process_alive(entry.second)) ::kill(entry.second, SIGKILL);
    }
}

bool wait_until_started(const acp::test::PidFile& pids, const AgentTree& tree) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!all_started(pids, tree) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return all_started(pids, tree);
}

void host_killed_leaves_nothing(const AgentTree& tree, const char* survivor) {
    acp::test::PidFile pids;
    std::string host = ACP_HOSTILE_HOST, agent = ACP_HOSTILE_AGENT, mode = tree.mode;
    char* argv[] = {&host[0], &agent[0], &pids.path[0], &mode[0], nullptr};
    pid_t host_pid = 0;
    REQUIRE(posix_spawn(&host_pid, host.c_str(), nullptr, nullptr, argv, environ) == 0);
    REQUIRE(wait_until_started(pids, tree));
    CHECK(survivors(pids).find(survivor) != std::string::npos);

    ::kill(host_pid, SIGKILL);
    int status = 0;
    REQUIRE(waitpid(host_pid, &status, 0) == host_pid);
    CHECK(WIFSIGNALED(status));

    CHECK(wait_for_none_alive(pids) == "");
    kill_recorded(pids);
}

void close_leaves_nothing(const AgentTree& tree) {
    acp::test::PidFile pids;
    acp::test::TestLoop loop;
    acp::SpawnOptions agent;
    agent.argv = {ACP_HOSTILE_AGENT, tree.mode, "--pid-file", pids.path};
    agent.shutdown_grace = std::chrono::milliseconds(200);
    agent.terminate_grace = std::chrono::milliseconds(200);
    auto client = acp::Client::spawn(loop.get(), agent);
    REQUIRE(client.ok());
    std::optional<acp::Status> closed;
    client.value()->on_closed([&](const acp::Status& why) { closed = why; });
    REQUIRE(loop.run_until([&] { return all_started(pids, tree); }));

    client.value()->close();
    REQUIRE(loop.run_until([&] { return closed.has_value(); }));
    REQUIRE(closed->agent_exit() != nullptr);
    CHECK(closed->agent_exit()->requested);
    CHECK(closed->agent_exit()->term_signal == SIGTERM);  // the agent's own exit, as before

    CHECK(wait_for_none_alive(pids) == "");
    kill_recorded(pids);
}

void exit_leaves_nothing(const AgentTree& tree) {
    acp::test::PidFile pids;
    acp::test::TestLoop loop;
    acp::SpawnOptions agent;
    agent.argv = {ACP_HOSTILE_AGENT, tree.mode, "--pid-file", pids.path, "--exit-code", "3"};
    agent.terminate_grace = std::chrono::milliseconds(200);
    auto client = acp::Client::spawn(loop.get(), agent);
    REQUIRE(client.ok());
    std::optional<acp::Status> closed;
    client.value()->on_closed([&](const acp::Status& why) { closed = why; });
    REQUIRE(loop.run_until([&] { return closed.has_value(); }));
    CHECK(all_started(pids, tree));
    REQUIRE(closed->agent_exit() != nullptr);
    CHECK_FALSE(closed->agent_exit()->requested);
    CHECK(closed->agent_exit()->term_signal == 0);
    CHECK(closed->agent_exit()->exit_code == 3);  // reported through the guard unchanged

    CHECK(wait_for_none_alive(pids) == "");
    kill_recorded(pids);
}

}  // namespace

TEST_CASE("no agent outlives its host: a host killed with SIGKILL leaves no agent and nothing of its group") {
    host_killed_leaves_nothing(kGroupTree, "group-orphan-ignoring-sigterm");
}

TEST_CASE("no agent outlives its host: closing the client leaves no agent and nothing of its group") {
    close_leaves_nothing(kGroupTree);
}

TEST_CASE("no agent outlives its host: an agent that exits leaves nothing of its group, and its exit is its own") {
    exit_leaves_nothing(kGroupTree);
}

// The rest needs the Linux guard: setsid() descendants are found through the subreaper
// and /proc, and the guard attacks assume the guard is the agent's parent. The portable
// POSIX variant cannot see either (docs/untrusted-agent.md), so they are not registered
// for it.
#if ACP_PLATFORM_LINUX

TEST_CASE("no agent outlives its host: a host killed with SIGKILL leaves no agent and no setsid() descendant") {
    host_killed_leaves_nothing(kSetsidTree, "orphan-ignoring-sigterm");
}

TEST_CASE("no agent outlives its host: closing the client leaves no agent and no setsid() descendant") {
    close_leaves_nothing(kSetsidTree);
}

TEST_CASE("no agent outlives its host: an agent that exits leaves no setsid() descendant, and its exit is its own") {
    exit_leaves_nothing(kSetsidTree);
}

namespace {

// The processes the stop-guard and kill-guard modes start (the guard is recorded last).
const char* const kGuardAttackRoles[] = {"agent", "child-ignoring-sigterm", "orphan-ignoring-sigterm", "guard"};

bool guard_attack_started(const acp::test::PidFile& pids) {
    for (const char* role : kGuardAttackRoles) {
        if (pids.pid_of(role) == 0) return false;
    }
    return true;
}

// The client's side of a guard attack: the attack happens, then the host closes the
// client (or not, when close_after is false: the client must notice by itself).
acp::Status closed_after_guard_attack(const char* mode, const acp::test::PidFile& pids, bool close_after) {
    acp::test::TestLoop loop;
    acp::SpawnOptions agent;
    agent.argv = {ACP_HOSTILE_AGENT, mode, "--pid-file", pids.path};
    agent.shutdown_grace = std::chrono::milliseconds(200);
    agent.terminate_grace = std::chrono::milliseconds(200);
    auto client = acp::Client::spawn(loop.get(), agent);
    REQUIRE(client.ok());
    std::optional<acp::Status> closed;
    client.value()->on_closed([&](const acp::Status& why) { closed = why; });
    REQUIRE(loop.run_until([&] { return guard_attack_started(pids); }));
    if (close_after) client.value()->close();
    // Bounded: the ladder (200 + 200 ms) and the guard's last second, far below 20 s.
    REQUIRE(loop.run_until([&] { return closed.has_value(); }));
    return *closed;
}

// The host SIGKILLed after the attack, once it reported the client's close (the host
// noticed: a stopped guard within its 100 ms watch, a killed one at once): nothing of the
// agent's tree may stay, although the guard cannot help any more.
void host_killed_after_guard_attack(const char* mode, const acp::test::PidFile& pids) {
    std::string host = ACP_HOSTILE_HOST, agent = ACP_HOSTILE_AGENT, attack = mode;
    char* argv[] = {&host[0], &agent[0], const_cast<char*>(pids.path.c_str()), &attack[0], nullptr};
    int out[2];
    REQUIRE(::pipe(out) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    pid_t host_pid = 0;
    int spawned = posix_spawn(&host_pid, host.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    REQUIRE(spawned == 0);
    // Bounded: 20 s, or the host's own exit (the pipe ends when it dies).
    std::string said;
    char buffer[512];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (said.find("closed: ") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
        pollfd readable{out[0], POLLIN, 0};
        if (::poll(&readable, 1, 100) <= 0) continue;
        ssize_t n = ::read(out[0], buffer, sizeof buffer);
        if (n <= 0) break;
        said.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
    CHECK(said.find("closed: ") != std::string::npos);
    CHECK(guard_attack_started(pids));
    ::kill(host_pid, SIGKILL);
    int status = 0;
    REQUIRE(waitpid(host_pid, &status, 0) == host_pid);
}

}  // namespace

TEST_CASE("no agent outlives its host: an agent that stops its guard is killed with its tree, and close completes") {
    acp::test::PidFile pids;
    acp::Status closed = closed_after_guard_attack("stop-guard", pids, /*close_after=*/true);
    CHECK(closed.message().find("the agent stopped the guard process") != std::string::npos);
    CHECK(wait_for_none_alive(pids) == "");
    kill_recorded(pids);
}

TEST_CASE("no agent outlives its host: a stopped guard is noticed without a close") {
    acp::test::PidFile pids;
    acp::Status closed = closed_after_guard_attack("stop-guard", pids, /*close_after=*/false);
    REQUIRE(closed.agent_exit() != nullptr);
    CHECK_FALSE(closed.agent_exit()->requested);
    CHECK(closed.message().find("the agent stopped the guard process") != std::string::npos);
    CHECK(closed.agent_exit()->guard_report.find("the agent stopped the guard process") == 0);
    CHECK(wait_for_none_alive(pids) == "");
    kill_recorded(pids);
}

TEST_CASE("no agent outlives its host: an agent that kills its guard goes with its tree, and the host is told") {
    acp::test::PidFile pids;
    acp::Status closed = closed_after_guard_attack("kill-guard", pids, /*close_after=*/false);
    REQUIRE(closed.agent_exit() != nullptr);
    CHECK_FALSE(closed.agent_exit()->requested);
    CHECK(closed.message().find("the guard process was killed by signal 9") != std::string::npos);
    CHECK(closed.agent_exit()->guard_report.find("the guard process was killed by signal 9") == 0);
    CHECK(closed.message().find("of the agent's processes were killed") != std::string::npos);
    CHECK(wait_for_none_alive(pids) == "");
    kill_recorded(pids);
}

TEST_CASE("no agent outlives its host: a host SIGKILLed after its guard was stopped leaves nothing") {
    acp::test::PidFile pids;
    host_killed_after_guard_attack("stop-guard", pids);
    CHECK(wait_for_none_alive(pids) == "");
    kill_recorded(pids);
}

TEST_CASE("no agent outlives its host: a host SIGKILLed after its guard was killed leaves nothing") {
    acp::test::PidFile pids;
    host_killed_after_guard_attack("kill-guard", pids);
    CHECK(wait_for_none_alive(pids) == "");
    kill_recorded(pids);
}

#endif  // ACP_PLATFORM_LINUX
