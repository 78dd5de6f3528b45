// SPDX-License-Identifier: Apache-2.0
#include "words.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <sstream>

namespace chat {

std::string self_dir() {
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return {};
    std::string p(path, static_cast<std::size_t>(n));
    return p.substr(0, p.rfind('/'));
}

std::string absolute(const std::string& base, const std::string& path) {
    if (!path.empty() && path[0] == '/') return path;
    return base + (base.size() > 1 ? "/" : "") + path;
}

std::string resolve_command(const std::string& base, const std::string& command) {
    if (command.find('/') != std::string::npos) return absolute(base, command);
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path != nullptr ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = absolute(dir.empty() ? base : absolute(base, dir), command);
        struct stat info {};
        if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
    }
    return {};
}

std::vector<std::string> split_words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

std::string text_of(const std::vector<acp::v2::ContentBlock>& blocks) {
    std::string text;
    for (const auto& block : blocks) {
        if (block.text() != nullptr) {
            text += block.text()->text;
        } else if (block.resource_link() != nullptr) {
            text += "[" + block.resource_link()->uri + "]";
        } else {
            text += "[" + block.tag() + "]";
        }
    }
    return text;
}


}  // namespace chat
