// SPDX-License-Identifier: Apache-2.0
#include "agent_group.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace chat {

namespace {

struct ProcessEntry {
    pid_t pid = 0;
    pid_t ppid = 0;
    pid_t pgrp = 0;
};

std::vector<ProcessEntry> read_process_table() {
    std::vector<ProcessEntry> table;
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return table;
    while (const dirent* entry = readdir(proc)) {
        const char* name = entry->d_name;
        if (name[0] < '1' || name[0] > '9') continue;
        std::ifstream stat(std::string("/proc/") + name + "/stat");
        std::string text;
        std::getline(stat, text);
        // "pid (comm) state ppid pgrp ...": comm may hold anything, so read after its last ')'.
        const std::size_t close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(text.substr(close + 1));
        std::string state;
        long ppid = 0, pgrp = 0;
        if (!(fields >> state >> ppid >> pgrp)) continue;
        table.push_back({static_cast<pid_t>(std::atol(name)), static_cast<pid_t>(ppid), static_cast<pid_t>(pgrp)});
    }
    closedir(proc);
    return table;
}

void add_group(std::vector<pid_t>& groups, pid_t group) {
    if (group > 1 && group != getpgrp() && std::find(groups.begin(), groups.end(), group) == groups.end()) {
        groups.push_back(group);
    }
}

}  // namespace

std::vector<pid_t> agent_process_groups() {
    const std::vector<ProcessEntry> table = read_process_table();
    const pid_t self = getpid();
    std::vector<pid_t> children_groups;
    std::vector<pid_t> grandchildren_groups;
    for (const ProcessEntry& child : table) {
        if (child.ppid != self) continue;
        add_group(children_groups, child.pgrp);
        for (const ProcessEntry& grandchild : table) {
            if (grandchild.ppid == child.pid) add_group(grandchildren_groups, grandchild.pgrp);
        }
    }
    for (pid_t group : children_groups) add_group(grandchildren_groups, group);
    return grandchildren_groups;
}

}  // namespace chat
