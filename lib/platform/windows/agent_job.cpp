// SPDX-License-Identifier: Apache-2.0
#include "platform/windows/agent_job.hpp"

#include <windows.h>

#include <string>
#include <utility>

namespace acp::detail {

namespace {

Status failed(const char* step) {
    return Status(Errc::spawn_failed, std::string("the agent's job object: ") + step + " failed (error " +
                                          std::to_string(::GetLastError()) + ")");
}

}  // namespace

Result<AgentJob> AgentJob::create() {
    // Not inheritable: a child holding the handle would keep its own tree alive.
    HANDLE job = ::CreateJobObjectW(nullptr, nullptr);
    if (job == nullptr) return failed("CreateJobObject");
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    if (!::SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
        Status status = failed("SetInformationJobObject");
        ::CloseHandle(job);
        return status;
    }
    return AgentJob(job);
}

AgentJob::AgentJob(AgentJob&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

AgentJob& AgentJob::operator=(AgentJob&& other) noexcept {
    if (this != &other) {
        if (handle_ != nullptr) ::CloseHandle(handle_);
        handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
}

AgentJob::~AgentJob() {
    if (handle_ != nullptr) ::CloseHandle(handle_);
}

Status AgentJob::adopt(int pid) {
    HANDLE process = ::OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, FALSE, static_cast<DWORD>(pid));
    if (process == nullptr) return failed("OpenProcess");
    bool assigned = ::AssignProcessToJobObject(handle_, process) != 0;
    Status status = assigned ? Status() : failed("AssignProcessToJobObject");
    ::CloseHandle(process);
    return status;
}

void AgentJob::terminate() {
    if (handle_ != nullptr) ::TerminateJobObject(handle_, 1);
}

std::size_t AgentJob::running() const {
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION accounting{};
    if (handle_ == nullptr || !::QueryInformationJobObject(handle_, JobObjectBasicAccountingInformation, &accounting,
                                                           sizeof accounting, nullptr)) {
        return 0;
    }
    return accounting.ActiveProcesses;
}

}  // namespace acp::detail
