// SPDX-License-Identifier: Apache-2.0
#include "words.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
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


namespace {

bool valid_env_name(const std::string& name) {
    if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
    for (char c : name) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    }
    return true;
}

bool has_control(const std::string& text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f) return true;
        // C1 controls, U+0080-U+009F, are C2 80-C2 9F in UTF-8.
        if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f) return true;
    }
    return false;
}

}  // namespace

std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

std::string terminal_login_line(const std::vector<std::string>& agent, const acp::v2::AuthMethodTerminal& method,
                                std::string& why) {
    std::vector<std::string> parts;
    if (method.env.has_value()) {
        for (const auto& variable : *method.env) {
            if (!valid_env_name(variable.name)) {
                why = "an environment name that is not [A-Za-z_][A-Za-z0-9_]*";
                return {};
            }
            parts.push_back(variable.name + "=" + variable.value);
        }
    }
    const std::size_t first_word = parts.size();
    parts.insert(parts.end(), agent.begin(), agent.end());
    if (method.args.has_value()) parts.insert(parts.end(), method.args->begin(), method.args->end());
    std::string line = first_word > 0 ? "env" : "";
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (has_control(parts[i])) {
            why = "a control character in its command";
            return {};
        }
        if (!line.empty()) line += ' ';
        // NAME=VALUE: the name is plain, the value quoted, so `env` sees one assignment.
        if (i < first_word) {
            const std::size_t eq = parts[i].find('=');
            line += parts[i].substr(0, eq + 1) + shell_quote(parts[i].substr(eq + 1));
        } else {
            line += shell_quote(parts[i]);
        }
    }
    return line;
}

}  // namespace chat
