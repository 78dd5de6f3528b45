// SPDX-License-Identifier: Apache-2.0
#include "platform/local_rendezvous.hpp"

#include <windows.h>

#include "platform/random_bytes.hpp"
#include "platform/windows/wide_text.hpp"

namespace acp::detail {

namespace {

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

std::string error_text(const char* what) { return std::string(what) + ": error " + std::to_string(::GetLastError()); }

}  // namespace

Result<std::unique_ptr<LocalRendezvous>> LocalRendezvous::make(bool) {
    wchar_t temp[MAX_PATH + 1];
    const DWORD length = ::GetTempPathW(MAX_PATH + 1, temp);
    if (length == 0 || length > MAX_PATH) {
        return Status(Errc::io_error, error_text("no private directory could be made (no temporary directory)"));
    }
    Result<std::string> name = random_name("acp-mcp-");
    if (!name) return name.status();
    // GetTempPathW ends with a separator.
    std::string directory = to_utf8(std::wstring_view(temp, length)) + *name;
    Result<std::wstring> wide = to_wide(directory, "the private directory");
    if (!wide) return wide.status();
    if (!::CreateDirectoryW(wide->c_str(), nullptr)) {
        return Status(Errc::io_error, error_text(("no private directory could be made at " + directory).c_str()));
    }
    Result<std::string> pipe = random_name("\\\\.\\pipe\\acp-mcp-");
    if (!pipe) {
        ::RemoveDirectoryW(wide->c_str());
        return pipe.status();
    }
    return std::unique_ptr<LocalRendezvous>(new LocalRendezvous(std::move(directory), std::move(*pipe)));
}

LocalRendezvous::~LocalRendezvous() {
    // A program still running cannot be deleted: a bridge closed a moment ago may still be
    // exiting. Then it and its directory stay in the temporary directory.
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
    if (file == INVALID_HANDLE_VALUE) return Status(Errc::io_error, error_text("cannot write the bridge program"));
    written_.push_back(path);
    std::size_t written = 0;
    while (written < size) {
        DWORD chunk = size - written > (1u << 30) ? (1u << 30) : static_cast<DWORD>(size - written);
        DWORD n = 0;
        if (!::WriteFile(file, image + written, chunk, &n, nullptr) || n == 0) {
            Status failed(Errc::io_error, error_text("cannot write the bridge program"));
            ::CloseHandle(file);
            return failed;
        }
        written += n;
    }
    if (!::CloseHandle(file)) return Status(Errc::io_error, error_text("cannot write the bridge program"));
    return path;
}

}  // namespace acp::detail
