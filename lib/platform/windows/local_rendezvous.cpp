// SPDX-License-Identifier: Apache-2.0
#include "platform/local_rendezvous.hpp"

#include <windows.h>

#include "platform/random_bytes.hpp"
#include "platform/windows/wide_text.hpp"

namespace acp::detail {

namespace {

constexpr const wchar_t* kDirectoryPrefix = L"acp-mcp-";

// 16 random bytes in hex: a name no other process guesses or already holds.
Result<std::string> random_name(const char* prefix) {
    unsigned char bytes[16];
    if (Status filled = fill_random(bytes, sizeof bytes); !filled) return filled;
    static const char kHex[] = "0123456789abcdef";
    std::string name = prefix;
    for (unsigned char byte : bytes) {
        name += kHex[byte >> 4];
        name += kHex[byte & 15];
    }
    return name;
}

Status io_error(const std::string& what, DWORD error) {
    return Status(Errc::io_error, what + ": error " + std::to_string(error));
}

// Windows deletes no program while it runs, so a carrier closed with its bridges still
// exiting leaves its directory behind. The next one removes such leftovers: every
// directory of ours whose programs can all be deleted now. A live carrier's is safe: it
// holds its program open without FILE_SHARE_DELETE (write_program), and a directory with
// no program yet (another host between make and write_program) is left alone.
void remove_leftovers(const std::wstring& temp) {
    WIN32_FIND_DATAW found;
    HANDLE search = ::FindFirstFileW((temp + kDirectoryPrefix + L"*").c_str(), &found);
    if (search == INVALID_HANDLE_VALUE) return;
    do {
        if ((found.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0) continue;
        const std::wstring directory = temp + found.cFileName + L"\\";
        WIN32_FIND_DATAW program;
        HANDLE programs = ::FindFirstFileW((directory + L"*.exe").c_str(), &program);
        if (programs == INVALID_HANDLE_VALUE) continue;
        bool all_deleted = true;
        do {
            all_deleted = ::DeleteFileW((directory + program.cFileName).c_str()) && all_deleted;
        } while (::FindNextFileW(programs, &program));
        ::FindClose(programs);
        if (all_deleted) ::RemoveDirectoryW(directory.c_str());
    } while (::FindNextFileW(search, &found));
    ::FindClose(search);
}

}  // namespace

Result<std::unique_ptr<LocalRendezvous>> LocalRendezvous::make(bool) {
    wchar_t temp[MAX_PATH + 1];
    const DWORD length = ::GetTempPathW(MAX_PATH + 1, temp);
    if (length == 0 || length > MAX_PATH) {
        return io_error("no private directory could be made (no temporary directory)", ::GetLastError());
    }
    // GetTempPathW ends with a separator.
    const std::wstring base(temp, length);
    remove_leftovers(base);
    Result<std::string> name = random_name("acp-mcp-");
    if (!name) return name.status();
    std::string directory = to_utf8(base) + *name;
    Result<std::wstring> wide = to_wide(directory, "the private directory");
    if (!wide) return wide.status();
    if (!::CreateDirectoryW(wide->c_str(), nullptr)) {
        return io_error("no private directory could be made at " + directory, ::GetLastError());
    }
    Result<std::string> pipe = random_name("\\\\.\\pipe\\acp-mcp-");
    if (!pipe) {
        ::RemoveDirectoryW(wide->c_str());
        return pipe.status();
    }
    return std::unique_ptr<LocalRendezvous>(new LocalRendezvous(std::move(directory), std::move(*pipe)));
}

LocalRendezvous::~LocalRendezvous() {
    for (std::intptr_t held : held_) ::CloseHandle(reinterpret_cast<HANDLE>(held));
    // A program still running is not deleted: a bridge closed a moment ago may still be
    // exiting. The next rendezvous made removes it and its directory (remove_leftovers).
    for (const std::string& path : written_) {
        if (auto wide = to_wide(path, "the program")) ::DeleteFileW(wide->c_str());
    }
    if (auto wide = to_wide(directory_, "the private directory")) ::RemoveDirectoryW(wide->c_str());
}

Result<std::string> LocalRendezvous::write_program(const std::string& name, const unsigned char* image,
                                                   std::size_t size) {
    std::string path = directory_ + "\\" + name + ".exe";
    Result<std::wstring> wide = to_wide(path, "the program");
    if (!wide) return wide.status();
    HANDLE file = ::CreateFileW(wide->c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) return io_error("cannot write the bridge program", ::GetLastError());
    written_.push_back(path);
    std::size_t written = 0;
    while (written < size) {
        DWORD chunk = size - written > (1u << 30) ? (1u << 30) : static_cast<DWORD>(size - written);
        DWORD n = 0;
        if (!::WriteFile(file, image + written, chunk, &n, nullptr) || n == 0) {
            Status failed = io_error("cannot write the bridge program", ::GetLastError());
            ::CloseHandle(file);
            return failed;
        }
        written += n;
    }
    if (!::CloseHandle(file)) return io_error("cannot write the bridge program", ::GetLastError());
    // Held open for as long as the carrier lives, sharing reading (and so running) only:
    // another host's remove_leftovers cannot delete it.
    HANDLE held = ::CreateFileW(wide->c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING,
                                FILE_ATTRIBUTE_NORMAL, nullptr);
    if (held == INVALID_HANDLE_VALUE) return io_error("cannot hold the bridge program", ::GetLastError());
    held_.push_back(reinterpret_cast<std::intptr_t>(held));
    return path;
}

}  // namespace acp::detail
