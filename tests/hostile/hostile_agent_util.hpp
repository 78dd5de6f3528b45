// SPDX-License-Identifier: Apache-2.0
// What the hostile-agent tests share: the agent's pid file and whether processes live.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace acp::test {

// A fresh path for the agent's pid file, removed again on destruction.
struct PidFile {
    std::string path;
    PidFile() {
        char dir[] = "/tmp/acp-hostile-XXXXXX";
        if (mkdtemp(dir) == nullptr) std::abort();
        path = std::string(dir) + "/pids";
        dir_ = dir;
    }
    ~PidFile() {
        std::remove(path.c_str());
        ::rmdir(dir_.c_str());
    }
    // (role, pid) lines the agent's processes appended so far.
    std::vector<std::pair<std::string, int>> read() const {
        std::vector<std::pair<std::string, int>> entries;
        std::ifstream in(path);
        std::string role;
        int pid = 0;
        while (in >> role >> pid) entries.emplace_back(role, pid);
        return entries;
    }
    int pid_of(const std::string& role) const {
        for (const auto& entry : read()) {
            if (entry.first == role) return entry.second;
        }
        return 0;
    }

private:
    std::string dir_;
};

// Gone, or a zombie nobody reaped yet (whoever reaps orphans in this environment).
inline bool process_alive(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    auto close_paren = line.rfind(')');
    if (close_paren == std::string::npos || close_paren + 2 >= line.size()) return false;
    char state = line[close_paren + 2];
    return state != 'Z' && state != 'X';
}

}  // namespace acp::test
