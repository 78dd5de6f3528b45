// SPDX-License-Identifier: Apache-2.0
#include "platform/local_rendezvous.hpp"

#include <windows.h>

#include <sddl.h>

#include <cwchar>
#include <cwctype>

#include "platform/random_bytes.hpp"
#include "platform/windows/user_sid.hpp"
#include "platform/windows/wide_text.hpp"

namespace acp::detail {

namespace {

constexpr const wchar_t* kDirectoryPrefix = L"acp-mcp-";
constexpr std::size_t kRandomHexDigits = 32;

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

// Exactly what make() names a directory or a program: "acp-mcp-" and 32 hex digits, or
// "acp-" and letters, digits and dashes and ".exe". Nothing else is ever deleted.
bool ours(const std::wstring& name, bool directory) {
    if (directory) {
        const std::size_t prefix = std::wcslen(kDirectoryPrefix);
        if (name.size() != prefix + kRandomHexDigits || name.compare(0, prefix, kDirectoryPrefix) != 0) return false;
        for (std::size_t i = prefix; i < name.size(); ++i) {
            if (!std::iswxdigit(name[i])) return false;
        }
        return true;
    }
    if (name.size() <= 8 || name.compare(0, 4, L"acp-") != 0 || name.compare(name.size() - 4, 4, L".exe") != 0) {
        return false;
    }
    for (wchar_t c : name.substr(0, name.size() - 4)) {
        if (!std::iswalnum(c) && c != L'-') return false;
    }
    return true;
}

// Windows deletes no program while it runs, so a carrier closed with its bridges still
// exiting leaves its directory behind. The next one removes such leftovers: every
// directory of ours whose programs can all be deleted now. A live carrier's is safe: it
// holds its program open without FILE_SHARE_DELETE from before its writer closes
// (write_program), and a directory with no program yet (another host between make and
// write_program) is left alone. Links (junctions, symbolic links) are never followed: a
// folder another user placed in a shared temporary directory deletes nothing of theirs.
void remove_leftovers(const std::wstring& temp) {
    constexpr DWORD kLink = FILE_ATTRIBUTE_REPARSE_POINT;
    WIN32_FIND_DATAW found;
    HANDLE search = ::FindFirstFileW((temp + kDirectoryPrefix + L"*").c_str(), &found);
    if (search == INVALID_HANDLE_VALUE) return;
    do {
        if ((found.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0 || (found.dwFileAttributes & kLink) != 0 ||
            !ours(found.cFileName, true)) {
            continue;
        }
        const std::wstring directory = temp + found.cFileName + L"\\";
        WIN32_FIND_DATAW program;
        HANDLE programs = ::FindFirstFileW((directory + L"*").c_str(), &program);
        if (programs == INVALID_HANDLE_VALUE) continue;
        bool any = false;
        bool all_deleted = true;
        do {
            const std::wstring name = program.cFileName;
            if (name == L"." || name == L"..") continue;
            if ((program.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | kLink)) != 0 || !ours(name, false)) {
                all_deleted = false;  // not ours: the directory stays, and so does this
                continue;
            }
            any = true;
            all_deleted = ::DeleteFileW((directory + name).c_str()) && all_deleted;
        } while (::FindNextFileW(programs, &program));
        ::FindClose(programs);
        if (any && all_deleted) ::RemoveDirectoryW(directory.c_str());
    } while (::FindNextFileW(search, &found));
    ::FindClose(search);
}

// A directory only this user (and the system) may enter, whatever the temporary directory
// above it lets others do: a protected DACL, nothing inherited.
bool create_private_directory(const std::wstring& path) {
    const std::wstring user = sid_text(process_user_sid(::GetCurrentProcess()));
    if (user.empty()) return false;
    const std::wstring sddl = L"D:P(A;OICI;FA;;;" + user + L")(A;OICI;FA;;;SY)";
    SECURITY_ATTRIBUTES attributes{};
    attributes.nLength = sizeof attributes;
    if (!::ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1,
                                                                &attributes.lpSecurityDescriptor, nullptr)) {
        return false;
    }
    const bool created = ::CreateDirectoryW(path.c_str(), &attributes) != 0;
    ::LocalFree(attributes.lpSecurityDescriptor);
    return created;
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
    if (!create_private_directory(*wide)) {
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
    HANDLE file = ::CreateFileW(wide->c_str(), GENERIC_WRITE, FILE_SHARE_READ, nullptr, CREATE_NEW,
                                FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) return io_error("cannot write the bridge program", ::GetLastError());
    written_.push_back(path);
    // Held open for as long as the carrier lives, from before the writer closes, sharing
    // no deletion: another host's remove_leftovers can never delete it.
    HANDLE held = ::CreateFileW(wide->c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_EXISTING,
                                FILE_ATTRIBUTE_NORMAL, nullptr);
    if (held == INVALID_HANDLE_VALUE) {
        Status failed = io_error("cannot hold the bridge program", ::GetLastError());
        ::CloseHandle(file);
        return failed;
    }
    held_.push_back(reinterpret_cast<std::intptr_t>(held));
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
    return path;
}

}  // namespace acp::detail
