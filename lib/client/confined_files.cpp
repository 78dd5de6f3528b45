// SPDX-License-Identifier: Apache-2.0
// The ready-made fs/read_text_file and fs/write_text_file handlers (acp/fs_guard.hpp):
// confined paths, bounded sizes, never a blocking open.
//
// Between the check and the open, a directory on the path could be swapped for a symlink
// by whoever else writes there; the last name is opened with O_NOFOLLOW, so at least the
// file itself cannot be a link planted after the check (docs/v1.md says what is left).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "acp/error_codes.hpp"
#include "acp/fs_guard.hpp"
#include "session/terminal_bytes.hpp"

namespace acp {

namespace {

// Closes a descriptor when it goes out of scope.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }
    // close(2)'s own result: a write may fail only there (NFS, quotas).
    int close_now() {
        const int result = ::close(fd_);
        fd_ = -1;
        return result;
    }

private:
    int fd_;
};

std::string system_error(const std::string& what, int error) { return what + ": " + std::strerror(error); }

// A regular file only: a FIFO or a device would block the loop or never end.
bool is_regular(int fd, std::string& why) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        why = system_error("cannot stat the file", errno);
        return false;
    }
    if (!S_ISREG(info.st_mode)) {
        why = "not a regular file";
        return false;
    }
    return true;
}

// Up to limit + 1 bytes of the file (one more tells that there was more).
bool read_up_to(int fd, std::size_t limit, std::string& bytes, std::string& why) {
    char buffer[64 * 1024];
    while (bytes.size() <= limit) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            why = system_error("cannot read the file", errno);
            return false;
        }
        if (n == 0) break;
        bytes.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
}

// The lines [first, first + count) (1-based, newlines kept); count 0 = to the end. Sets
// complete when the range ended inside bytes (a newline after its last line, or the end
// of the file).
std::string_view line_range(std::string_view bytes, std::size_t first, std::size_t count, bool at_end, bool& complete) {
    std::size_t start = 0;
    for (std::size_t line = 1; line < first; ++line) {
        const std::size_t newline = bytes.find('\n', start);
        if (newline == std::string_view::npos) {
            complete = at_end;
            return {};
        }
        start = newline + 1;
    }
    if (count == 0) {
        complete = at_end;
        return bytes.substr(start);
    }
    std::size_t end = start;
    for (std::size_t line = 0; line < count; ++line) {
        const std::size_t newline = bytes.find('\n', end);
        if (newline == std::string_view::npos) {
            complete = at_end;
            return bytes.substr(start);
        }
        end = newline + 1;
    }
    complete = true;
    return bytes.substr(start, end - start);
}

std::string as_utf8(std::string_view bytes) {
    std::string pending;
    std::string text;
    detail::utf8_decode_append(bytes, pending, text);
    if (!pending.empty()) text += "\xEF\xBF\xBD";  // a sequence cut off by the end: U+FFFD
    return text;
}

bool write_all(int fd, std::string_view content, std::string& why) {
    while (!content.empty()) {
        const ssize_t n = ::write(fd, content.data(), content.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            why = system_error("cannot write the file", errno);
            return false;
        }
        content.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// mkdir -p of the directories between the resolved ancestor and the file: every name is
// below a root already (confine_path checked the whole path).
bool create_parents(const std::string& path, std::string& why) {
    for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        const std::string directory = path.substr(0, slash);
        if (::mkdir(directory.c_str(), 0777) != 0 && errno != EEXIST) {
            why = system_error("cannot create the directory '" + directory + "'", errno);
            return false;
        }
    }
    return true;
}

}  // namespace

void read_confined_file(const Client& client, const v1::ReadTextFileRequest& request,
                        const ClientMethodResponder& responder, const ConfinedFilesOptions& options) {
    Result<std::string> path = confine_path(client, request.sessionId, request.path, PathUse::read);
    if (!path) return responder.fail(path.status().rpc_code(), path.status().message());
    if ((request.line.has_value() && *request.line < 1) || (request.limit.has_value() && *request.limit < 0)) {
        return responder.fail(error_code::invalid_params, "line starts at 1 and limit is not negative");
    }
    FileDescriptor file(::open(path->c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
    if (file.get() < 0) {
        const int error = errno;
        if (error == ENOENT) return responder.fail(error_code::resource_not_found, "no such file: " + request.path);
        return responder.fail(error_code::internal_error, system_error("cannot open " + request.path, error));
    }
    std::string why;
    if (!is_regular(file.get(), why)) return responder.fail(error_code::invalid_params, request.path + ": " + why);
    std::string bytes;
    if (!read_up_to(file.get(), options.max_file_bytes, bytes, why)) {
        return responder.fail(error_code::internal_error, request.path + ": " + why);
    }
    const bool at_end = bytes.size() <= options.max_file_bytes;
    if (!at_end) bytes.resize(options.max_file_bytes);
    bool complete = false;
    const std::size_t first = request.line.has_value() ? static_cast<std::size_t>(*request.line) : 1;
    const std::size_t count = request.limit.has_value() ? static_cast<std::size_t>(*request.limit) : 0;
    std::string_view range;
    if (request.limit.has_value() && count == 0) {
        complete = true;  // zero lines asked for
    } else {
        range = line_range(bytes, first, count, at_end, complete);
    }
    if (!complete) {
        return responder.fail(
            error_code::invalid_params,
            request.path + " is larger than " + std::to_string(options.max_file_bytes) +
                " bytes (ConfinedFilesOptions::max_file_bytes): read it in parts with line and limit");
    }
    v1::ReadTextFileResponse response;
    response.content = as_utf8(range);
    responder.respond(response);
}

void write_confined_file(const Client& client, const v1::WriteTextFileRequest& request,
                         const ClientMethodResponder& responder, const ConfinedFilesOptions& options) {
    Result<std::string> path = confine_path(client, request.sessionId, request.path, PathUse::write);
    if (!path) return responder.fail(path.status().rpc_code(), path.status().message());
    if (request.content.size() > options.max_file_bytes) {
        return responder.fail(error_code::invalid_params, "the content is larger than " +
                                                              std::to_string(options.max_file_bytes) +
                                                              " bytes (ConfinedFilesOptions::max_file_bytes)");
    }
    std::string why;
    if (options.create_directories && !create_parents(*path, why)) {
        return responder.fail(error_code::internal_error, why);
    }
    FileDescriptor file(::open(path->c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0666));
    if (file.get() < 0) {
        const int error = errno;
        const int code = error == ENOENT ? error_code::resource_not_found : error_code::internal_error;
        return responder.fail(code, system_error("cannot open " + request.path + " for writing", error));
    }
    // Truncated only once it is known to be a regular file.
    if (!is_regular(file.get(), why)) return responder.fail(error_code::invalid_params, request.path + ": " + why);
    if (::ftruncate(file.get(), 0) != 0) {
        return responder.fail(error_code::internal_error, system_error("cannot truncate " + request.path, errno));
    }
    if (!write_all(file.get(), request.content, why) || file.close_now() != 0) {
        if (why.empty()) why = system_error("cannot write the file", errno);
        return responder.fail(error_code::internal_error, request.path + ": " + why);
    }
    responder.respond(v1::WriteTextFileResponse{});
}

void serve_confined_files(Client& client, ConfinedFilesOptions options) {
    // The handlers live inside the client: the reference cannot outlive it.
    if (options.read) {
        client.on_read_text_file([&client, options](const v1::ReadTextFileRequest& request, ClientMethodResponder out) {
            read_confined_file(client, request, out, options);
        });
    }
    if (options.write) {
        client.on_write_text_file(
            [&client, options](const v1::WriteTextFileRequest& request, ClientMethodResponder out) {
                write_confined_file(client, request, out, options);
            });
    }
}

}  // namespace acp
