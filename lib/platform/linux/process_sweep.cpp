// SPDX-License-Identifier: Apache-2.0
#include "platform/linux/process_sweep.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace acp::detail {

namespace {

// Reads at most cap bytes of a /proc file; empty when it is gone or unreadable.
std::string read_proc_file(const std::string& path, std::size_t cap) {
    std::string content;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return content;
    char buffer[4096];
    while (content.size() < cap) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n <= 0) break;
        content.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return content;
}

struct ProcessFacts {
    char state = 0;
    int parent = 0;
    int group = 0;
    int session = 0;
};

bool read_facts(int pid, ProcessFacts& facts) {
    std::string stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat", 1024);
    // The command name may hold anything, ')' included: the fields follow the last one.
    auto close_paren = stat.rfind(')');
    if (close_paren == std::string::npos) return false;
    return std::sscanf(stat.c_str() + close_paren + 1, " %c %d %d %d", &facts.state, &facts.parent, &facts.group,
                       &facts.session) == 4;
}

// Whether the environment the process started with holds the marker as a whole entry.
bool has_marker(int pid, const std::string& marker) {
    if (marker.empty()) return false;
    std::string environ = read_proc_file("/proc/" + std::to_string(pid) + "/environ", 1u << 20);
    std::string_view rest(environ);
    while (!rest.empty()) {
        auto end = rest.find('\0');
        if (rest.substr(0, end) == marker) return true;
        if (end == std::string_view::npos) break;
        rest.remove_prefix(end + 1);
    }
    return false;
}

// The living processes of the tree (zombies left out: they hold nothing but a pid).
std::vector<int> find_tree(const AgentTree& tree) {
    const int self = ::getpid();
    std::unordered_map<int, ProcessFacts> all;
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return {};
    while (dirent* entry = ::readdir(proc)) {
        char* end = nullptr;
        long pid = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || pid <= 1 || pid == self) continue;
        ProcessFacts facts;
        if (read_facts(static_cast<int>(pid), facts) && facts.state != 'Z' && facts.state != 'X') {
            all.emplace(static_cast<int>(pid), facts);
        }
    }
    ::closedir(proc);

    std::unordered_set<int> members;
    for (const auto& [pid, facts] : all) {
        if (pid == tree.guard_pid || pid == tree.agent_pid || (tree.guard_pid > 0 && facts.session == tree.guard_pid) ||
            (tree.agent_pid > 0 && facts.group == tree.agent_pid) || has_marker(pid, tree.marker)) {
            members.insert(pid);
        }
    }
    // Descendants of members, to a fixed point (a process's children may be listed first).
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& [pid, facts] : all) {
            if (members.count(pid) == 0 && members.count(facts.parent) != 0) grew = members.insert(pid).second;
        }
    }
    members.erase(self);
    return std::vector<int>(members.begin(), members.end());
}

}  // namespace

std::size_t kill_agent_tree(const AgentTree& tree) {
    std::unordered_set<int> killed;
    if (tree.guard_pid <= 0 && tree.agent_pid <= 0 && tree.marker.empty()) return 0;
    for (int pass = 0; pass < 100; ++pass) {
        std::vector<int> found = find_tree(tree);
        bool any = false;
        for (int pid : found) {
            if (pid == tree.guard_pid) continue;
            any = true;
            ::kill(pid, SIGSTOP);
        }
        if (!any) break;
        for (int pid : found) {
            if (pid == tree.guard_pid) continue;
            ::kill(pid, SIGKILL);
            killed.insert(pid);
        }
        // Killed processes turn into zombies within moments; look again for any that
        // forked between the scan and the freeze.
        timespec pause{0, 2 * 1000 * 1000};
        ::nanosleep(&pause, nullptr);
    }
    return killed.size();
}

char process_state(int pid) {
    ProcessFacts facts;
    return pid > 0 && read_facts(pid, facts) ? facts.state : 0;
}

}  // namespace acp::detail
