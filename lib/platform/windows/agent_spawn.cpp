// SPDX-License-Identifier: Apache-2.0
#include "platform/windows/agent_spawn.hpp"

#include <windows.h>

#include <fcntl.h>
#include <io.h>

#include <algorithm>
#include <atomic>
#include <cwctype>
#include <string>
#include <utility>
#include <vector>

#include "platform/windows/command_line.hpp"
#include "platform/windows/wide_text.hpp"

namespace acp::detail {

namespace {

constexpr DWORD kPipeBufferBytes = 64 * 1024;

Status os_failure(const std::string& what) {
    return Status(Errc::spawn_failed,
                  "cannot start agent: " + what + " failed (error " + std::to_string(::GetLastError()) + ")");
}

// Names compare ignoring case, as Windows compares environment names.
bool same_name(std::wstring_view a, std::wstring_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::towupper(a[i]) != std::towupper(b[i])) return false;
    }
    return true;
}

// The name of an entry; entries such as "=C:=C:\dir" (a drive's working directory) have
// a name starting with '='.
std::wstring_view entry_name(std::wstring_view entry) {
    auto eq = entry.find(L'=', 1);
    return entry.substr(0, eq == std::wstring_view::npos ? entry.size() : eq);
}

struct Environment {
    std::vector<std::wstring> entries;

    std::wstring lookup(std::wstring_view name) const {
        for (const auto& entry : entries) {
            if (same_name(entry_name(entry), name)) return entry.substr(name.size() + 1);
        }
        return {};
    }

    // NAME=value\0...\0\0, sorted by name ignoring case as CreateProcessW documents.
    std::wstring block() const {
        std::vector<std::wstring> sorted = entries;
        std::sort(sorted.begin(), sorted.end(), [](const std::wstring& a, const std::wstring& b) {
            return ::CompareStringOrdinal(a.c_str(), static_cast<int>(entry_name(a).size()), b.c_str(),
                                          static_cast<int>(entry_name(b).size()), TRUE) == CSTR_LESS_THAN;
        });
        std::wstring out;
        for (const auto& entry : sorted) {
            out += entry;
            out.push_back(L'\0');
        }
        out.push_back(L'\0');
        return out;
    }
};

Result<Environment> build_environment(const AgentSpawnRequest& request) {
    Environment env;
    for (const auto& entry : request.env) {
        auto wide =
            to_wide(entry, "cannot start agent: the environment entry '" + entry.substr(0, entry.find('=')) + "'");
        if (!wide) return wide.status();
        std::wstring_view name = entry_name(*wide);
        env.entries.erase(std::remove_if(env.entries.begin(), env.entries.end(),
                                         [&](const std::wstring& kept) { return same_name(entry_name(kept), name); }),
                          env.entries.end());
        env.entries.push_back(std::move(*wide));
    }
    return env;
}

bool is_file(const std::wstring& path) {
    DWORD attributes = ::GetFileAttributesW(path.c_str());
    return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

bool has_runnable_extension(std::wstring_view path) {
    auto dot = path.find_last_of(L".\\/");
    if (dot == std::wstring_view::npos || path[dot] != L'.') return false;
    std::wstring_view extension = path.substr(dot);
    for (const wchar_t* known : {L".exe", L".com", L".bat", L".cmd"}) {
        if (same_name(extension, known)) return true;
    }
    return false;
}

// `base` itself when it names a runnable file, else base with each extension Windows runs.
std::wstring find_runnable(const std::wstring& base) {
    if (has_runnable_extension(base)) return is_file(base) ? base : std::wstring();
    for (const wchar_t* extension : {L".com", L".exe", L".bat", L".cmd"}) {
        std::wstring candidate = base + extension;
        if (is_file(candidate)) return candidate;
    }
    return {};
}

std::wstring full_path(const std::wstring& path) {
    DWORD size = ::GetFullPathNameW(path.c_str(), 0, nullptr, nullptr);
    if (size == 0) return path;
    std::wstring out(size, L'\0');
    size = ::GetFullPathNameW(path.c_str(), size, &out[0], nullptr);
    out.resize(size);
    return out;
}

Result<std::wstring> resolve_program(const std::string& program, const Environment& env, const std::wstring& cwd) {
    if (program.empty()) return Status(Errc::spawn_failed, "cannot start agent: the program name is empty");
    auto wide = to_wide(program, "the program name");
    if (!wide) return wide.status();
    if (program.find_first_of("\\/:") != std::string::npos) {
        std::wstring path = *wide;
        bool relative = !(path.size() > 1 && path[1] == L':') && path[0] != L'\\' && path[0] != L'/';
        if (relative && !cwd.empty()) path = cwd + L"\\" + path;
        std::wstring found = find_runnable(full_path(path));
        if (found.empty()) {
            return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' is not a program file");
        }
        return found;
    }
    std::wstring search = env.lookup(L"PATH");
    std::size_t start = 0;
    while (start < search.size()) {
        auto end = search.find(L';', start);
        if (end == std::wstring::npos) end = search.size();
        std::wstring dir = search.substr(start, end - start);
        start = end + 1;
        // PATH entries may be quoted ("C:\Program Files\x"); an empty one is no folder.
        dir.erase(std::remove(dir.begin(), dir.end(), L'"'), dir.end());
        if (dir.empty()) continue;
        if (dir.back() != L'\\' && dir.back() != L'/') dir.push_back(L'\\');
        std::wstring found = find_runnable(dir + *wide);
        if (!found.empty()) return full_path(found);
    }
    return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' was not found on PATH");
}

// One pipe: the host's end overlapped (what libuv wants) and not inherited, the agent's
// end ordinary and inheritable. A named pipe, as anonymous pipes cannot be overlapped;
// the name is unique to this process and spawn, and the host's end is made first with
// FILE_FLAG_FIRST_PIPE_INSTANCE and one instance, so nobody else can take it.
struct PipePair {
    HANDLE host = INVALID_HANDLE_VALUE;
    HANDLE agent = INVALID_HANDLE_VALUE;

    ~PipePair() {
        if (host != INVALID_HANDLE_VALUE) ::CloseHandle(host);
        if (agent != INVALID_HANDLE_VALUE) ::CloseHandle(agent);
    }

    // agent_reads: the agent's stdin; otherwise its stdout or stderr.
    Status open(bool agent_reads) {
        static std::atomic<unsigned> counter{0};
        std::wstring name = L"\\\\.\\pipe\\acp-agent-" + std::to_wstring(::GetCurrentProcessId()) + L"-" +
                            std::to_wstring(++counter) + L"-" + std::to_wstring(::GetTickCount64());
        DWORD access = (agent_reads ? PIPE_ACCESS_OUTBOUND : PIPE_ACCESS_INBOUND) | FILE_FLAG_OVERLAPPED |
                       FILE_FLAG_FIRST_PIPE_INSTANCE;
        host = ::CreateNamedPipeW(name.c_str(), access, PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT, 1,
                                  kPipeBufferBytes, kPipeBufferBytes, 0, nullptr);
        if (host == INVALID_HANDLE_VALUE) return os_failure("CreateNamedPipe");
        SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
        // FILE_WRITE_ATTRIBUTES beside the data access: what SetNamedPipeHandleState needs,
        // which runtimes (libuv among them) call on the stdio they are given.
        DWORD agent_access = (agent_reads ? GENERIC_READ : GENERIC_WRITE) | FILE_WRITE_ATTRIBUTES;
        agent = ::CreateFileW(name.c_str(), agent_access, 0, &inherit, OPEN_EXISTING, 0, nullptr);
        if (agent == INVALID_HANDLE_VALUE) return os_failure("opening the agent's end of a pipe");
        return Status();
    }

    // The host's end as a C runtime descriptor, for uv_pipe_open. Never 0-2: libuv does
    // not take those over (it duplicates the handle and leaves the descriptor open, which
    // would keep the agent's stdin from ever reaching EOF), and a host without a console
    // may have them free.
    int take_host_fd() {
        int fd = ::_open_osfhandle(reinterpret_cast<intptr_t>(host), _O_BINARY);
        if (fd < 0) return -1;
        host = INVALID_HANDLE_VALUE;
        std::vector<int> low;
        while (fd >= 0 && fd <= 2) {
            low.push_back(fd);
            fd = ::_dup(fd);
        }
        for (int unused : low) ::_close(unused);
        return fd;
    }
};

bool host_has_console() {
    DWORD pid = 0;
    return ::GetConsoleProcessList(&pid, 1) > 0;
}

}  // namespace

SpawnedAgent::SpawnedAgent(SpawnedAgent&& other) noexcept
    : pid(other.pid),
      process(std::exchange(other.process, nullptr)),
      stdin_fd(std::exchange(other.stdin_fd, -1)),
      stdout_fd(std::exchange(other.stdout_fd, -1)),
      stderr_fd(std::exchange(other.stderr_fd, -1)),
      job(std::move(other.job)),
      console_shared(other.console_shared),
      program(std::move(other.program)) {}

SpawnedAgent::~SpawnedAgent() {
    for (int fd : {stdin_fd, stdout_fd, stderr_fd}) {
        if (fd >= 0) ::_close(fd);
    }
    if (process != nullptr) ::CloseHandle(process);
}

Result<SpawnedAgent> spawn_agent(const AgentSpawnRequest& request) {
    if (request.argv.empty()) return Status(Errc::spawn_failed, "cannot start agent: argv is empty");
    for (std::size_t i = 0; i < request.argv.size(); ++i) {
        auto wide = to_wide(request.argv[i], "cannot start agent: " + (i == 0 ? std::string("the program name")
                                                                              : "argument " + std::to_string(i)));
        if (!wide) return wide.status();
    }
    std::wstring cwd;
    if (!request.cwd.empty()) {
        auto wide = to_wide(request.cwd, "the working directory");
        if (!wide) return wide.status();
        DWORD attributes = ::GetFileAttributesW(wide->c_str());
        if (attributes == INVALID_FILE_ATTRIBUTES || (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0) {
            return Status(Errc::spawn_failed,
                          "cannot start agent: working directory '" + request.cwd + "' is not a directory");
        }
        cwd = full_path(*wide);
    }
    auto env = build_environment(request);
    if (!env) return env.status();
    auto program = resolve_program(request.argv[0], *env, cwd);
    if (!program) return program.status();

    std::string program_utf8 = to_utf8(*program);
    std::wstring application = *program;
    Result<std::string> line = Status();
    if (is_batch_file(program_utf8)) {
        wchar_t system[MAX_PATH];
        UINT size = ::GetSystemDirectoryW(system, MAX_PATH);
        if (size == 0 || size >= MAX_PATH) return os_failure("GetSystemDirectory");
        application = std::wstring(system, size) + L"\\cmd.exe";
        line = batch_command_line(to_utf8(application), program_utf8, request.argv);
    } else {
        line = exe_command_line(request.argv);
    }
    if (!line) return line.status();
    auto command = to_wide(*line, "the command line");
    if (!command) return command.status();
    // CreateProcessW's limit, counted in UTF-16 units with the terminating NUL.
    if (command->size() >= 32767) {
        return Status(Errc::invalid_argument, "cannot start agent: the command line is longer than Windows allows");
    }

    PipePair in, out, err;
    for (auto* pipe : {&in, &out, &err}) {
        if (Status status = pipe->open(pipe == &in); !status) return status;
    }
    auto job = AgentJob::create();
    if (!job) return job.status();

    // Only the three pipe ends are inherited, whatever else the host made inheritable (an
    // agent holding another agent's pipe would keep that one from ever seeing EOF).
    HANDLE inherited[3] = {in.agent, out.agent, err.agent};
    SIZE_T attributes_size = 0;
    ::InitializeProcThreadAttributeList(nullptr, 1, 0, &attributes_size);
    std::vector<char> attributes_buffer(attributes_size);
    auto* attributes = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(attributes_buffer.data());
    if (!::InitializeProcThreadAttributeList(attributes, 1, 0, &attributes_size)) {
        return os_failure("InitializeProcThreadAttributeList");
    }
    struct AttributeListGuard {
        LPPROC_THREAD_ATTRIBUTE_LIST list;
        ~AttributeListGuard() { ::DeleteProcThreadAttributeList(list); }
    } attributes_guard{attributes};
    if (!::UpdateProcThreadAttribute(attributes, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherited, sizeof inherited,
                                     nullptr, nullptr)) {
        return os_failure("UpdateProcThreadAttribute");
    }
    STARTUPINFOEXW startup{};
    startup.StartupInfo.cb = sizeof startup;
    startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    startup.StartupInfo.hStdInput = in.agent;
    startup.StartupInfo.hStdOutput = out.agent;
    startup.StartupInfo.hStdError = err.agent;
    startup.lpAttributeList = attributes;

    bool console_shared = host_has_console();
    DWORD flags = CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP | CREATE_UNICODE_ENVIRONMENT |
                  EXTENDED_STARTUPINFO_PRESENT | (console_shared ? 0 : CREATE_NO_WINDOW);
    std::wstring block = env->block();
    PROCESS_INFORMATION info{};
    if (!::CreateProcessW(application.c_str(), &(*command)[0], nullptr, nullptr, TRUE, flags, &block[0],
                          cwd.empty() ? nullptr : cwd.c_str(), &startup.StartupInfo, &info)) {
        return os_failure("starting '" + request.argv[0] + "' (CreateProcess)");
    }
    SpawnedAgent agent(std::move(*job));
    agent.pid = static_cast<int>(info.dwProcessId);
    agent.process = info.hProcess;
    agent.console_shared = console_shared;
    agent.program = std::move(program_utf8);
    // In the job before it runs a single instruction: nothing it starts can be outside.
    if (Status status = agent.job.adopt(agent.pid); !status) {
        ::TerminateProcess(info.hProcess, 1);
        ::CloseHandle(info.hThread);
        return status;
    }
    DWORD resumed = ::ResumeThread(info.hThread);
    ::CloseHandle(info.hThread);
    if (resumed == static_cast<DWORD>(-1)) {
        Status status = os_failure("ResumeThread");
        agent.job.terminate();
        return status;
    }
    // The agent holds its ends now; the host's copies would keep the pipes from ending.
    for (auto* pipe : {&in, &out, &err}) {
        ::CloseHandle(pipe->agent);
        pipe->agent = INVALID_HANDLE_VALUE;
    }
    agent.stdin_fd = in.take_host_fd();
    agent.stdout_fd = out.take_host_fd();
    agent.stderr_fd = err.take_host_fd();
    if (agent.stdin_fd < 0 || agent.stdout_fd < 0 || agent.stderr_fd < 0) {
        agent.job.terminate();
        return Status(Errc::spawn_failed, "cannot start agent: no C runtime descriptor for its pipes");
    }
    return agent;
}

bool break_agent(const SpawnedAgent& agent) {
    // Only while the agent runs: its pid names its process group only as long as the group
    // exists, and an event for a group the console does not know can reach every process
    // on the console, the host's included.
    if (!agent.console_shared || ::WaitForSingleObject(static_cast<HANDLE>(agent.process), 0) != WAIT_TIMEOUT) {
        return false;
    }
    return ::GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, static_cast<DWORD>(agent.pid)) != 0;
}

unsigned long exit_code_of(void* process) {
    DWORD code = 0;
    if (!::GetExitCodeProcess(static_cast<HANDLE>(process), &code)) return 0;
    return code;
}

}  // namespace acp::detail
