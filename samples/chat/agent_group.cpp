// SPDX-License-Identifier: Apache-2.0
#include "agent_group.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace chat {

pid_t agent_process_group() {
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return 0;
    const pid_t self = getpid();
    pid_t group = 0;
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
        if (ppid == self && pgrp > 1 && pgrp != getpgrp()) {
            group = static_cast<pid_t>(pgrp);
            break;
        }
    }
    closedir(proc);
    return group;
}

}  // namespace chat
