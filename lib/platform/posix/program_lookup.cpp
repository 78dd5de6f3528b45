// SPDX-License-Identifier: Apache-2.0
#include "platform/posix/program_lookup.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "platform/program_search.hpp"

namespace acp::detail {

namespace {

std::string lookup_env(const std::vector<std::string>& env, std::string_view name) {
    for (const auto& entry : env) {
        if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=') {
            return entry.substr(name.size() + 1);
        }
    }
    return {};
}

}  // namespace

Status check_agent_directory(const std::string& cwd) {
    if (cwd.empty()) return Status();
    struct stat info {};
    if (::stat(cwd.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
        return Status(Errc::spawn_failed, "cannot start agent: working directory '" + cwd + "' is not a directory");
    }
    return Status();
}

Result<std::string> resolve_agent_program(const std::string& program, const std::vector<std::string>& env,
                                          const std::string& cwd) {
    if (program.empty()) return Status(Errc::spawn_failed, "cannot start agent: the program name is empty");
    if (program.find('/') != std::string::npos) {
        std::string path = program;
        if (program[0] != '/' && !cwd.empty()) path = cwd + "/" + program;
        struct stat info {};
        if (::stat(path.c_str(), &info) != 0) {
            return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' does not exist");
        }
        if (!is_program_file(path)) {
            return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' is not an executable file");
        }
        // Unchanged: the child resolves a relative path after changing to cwd, as checked.
        return program;
    }
    std::string search_path = lookup_env(env, "PATH");
    if (search_path.empty()) search_path = "/usr/local/bin:/usr/bin:/bin";
    bool found_not_executable = false;
    std::size_t start = 0;
    while (start <= search_path.size()) {
        auto end = search_path.find(':', start);
        if (end == std::string::npos) end = search_path.size();
        std::string dir = search_path.substr(start, end - start);
        if (dir.empty()) dir = ".";
        std::string candidate = dir;
        candidate += '/';
        candidate += program;
        if (is_program_file(candidate)) {
            // A relative PATH entry means the host's directory, not the agent's cwd.
            if (candidate[0] != '/') {
                char* absolute = ::realpath(candidate.c_str(), nullptr);
                if (absolute != nullptr) {
                    candidate = absolute;
                    std::free(absolute);
                }
            }
            return candidate;
        }
        if (::access(candidate.c_str(), F_OK) == 0) found_not_executable = true;
        start = end + 1;
    }
    if (found_not_executable) {
        return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' is on PATH but not executable");
    }
    return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' was not found on PATH");
}

}  // namespace acp::detail
