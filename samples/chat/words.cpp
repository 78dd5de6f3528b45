// SPDX-License-Identifier: Apache-2.0
#include "words.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include <cctype>
#include <climits>
#include <cstdlib>
#include <sstream>

namespace chat {

std::string self_dir() {
    char path[PATH_MAX];
    std::size_t size = sizeof path;
    if (uv_exepath(path, &size) != 0 || size == 0) return {};
    std::string p(path, size);
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
        std::string candidate = absolute(dir.empty() ? base : absolute(base, dir), command);
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

std::string_view block_text(const acp::v2::ContentBlock& block, std::string& scratch) {
    if (block.text() != nullptr) return block.text()->text;
    scratch = "[" + (block.resource_link() != nullptr ? block.resource_link()->uri : block.tag()) + "]";
    return scratch;
}

std::string text_of(const std::vector<acp::v2::ContentBlock>& blocks) {
    std::string text;
    std::string scratch;
    for (const auto& block : blocks) text += block_text(block, scratch);
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

// Exact names, then prefixes (every variable of the loader and of these tools): what they
// change is which programs, libraries, startup files or packages run.
constexpr const char* kChangesWhatRuns[] = {"PATH",
                                            "BASH_ENV",
                                            "ENV",
                                            "ZDOTDIR",
                                            "SHELLOPTS",
                                            "BASHOPTS",
                                            "PS4",
                                            "PROMPT_COMMAND",
                                            "IFS",
                                            "SHELL",
                                            "NODE_OPTIONS",
                                            "NODE_PATH",
                                            "PERL5OPT",
                                            "PERL5LIB",
                                            "PERLLIB",
                                            "PERL5DB",
                                            "RUBYOPT",
                                            "RUBYLIB",
                                            "GEM_HOME",
                                            "GEM_PATH",
                                            "BUNDLE_GEMFILE",
                                            "JAVA_TOOL_OPTIONS",
                                            "_JAVA_OPTIONS",
                                            "JDK_JAVA_OPTIONS",
                                            "CLASSPATH",
                                            "LUA_INIT",
                                            "LUA_PATH",
                                            "LUA_CPATH",
                                            "TCLLIBPATH",
                                            "GCONV_PATH",
                                            "HOME",
                                            "XDG_CONFIG_HOME",
                                            "EDITOR",
                                            "VISUAL",
                                            "PAGER",
                                            "BROWSER"};
constexpr const char* kChangesWhatRunsPrefixes[] = {"LD_",         "DYLD_", "PYTHON", "GIT_",    "NPM_CONFIG_",
                                                    "npm_config_", "PIP_",  "UV_",    "DOTNET_", "COMPlus_"};

}  // namespace

std::vector<std::string> env_changing_what_runs(const acp::v2::AuthMethodTerminal& method) {
    std::vector<std::string> names;
    if (!method.env.has_value()) return names;
    for (const auto& variable : *method.env) {
        bool flagged = false;
        for (const char* name : kChangesWhatRuns) flagged = flagged || variable.name == name;
        for (const char* prefix : kChangesWhatRunsPrefixes) flagged = flagged || variable.name.rfind(prefix, 0) == 0;
        if (flagged) names.push_back(variable.name);
    }
    return names;
}

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
