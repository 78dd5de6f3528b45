// SPDX-License-Identifier: Apache-2.0
// The ready-made fs/read_text_file and fs/write_text_file handlers (acp/fs_guard.hpp):
// confined paths, bounded sizes, never a blocking open.
//
// Between the check and the open, a directory on the path could be swapped for a symlink
// by whoever else writes there; the last name is opened without following a link
// (platform/plain_file.hpp: O_NOFOLLOW, or a reparse point refused on Windows), so at least
// the file itself cannot be a link planted after the check (docs/v1.md says what is left).
#include <string>

#include "acp/error_codes.hpp"
#include "acp/fs_guard.hpp"
#include "platform/plain_file.hpp"
#include "session/terminal_bytes.hpp"

namespace acp {

namespace {

using detail::PlainFile;

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

}  // namespace

void read_confined_file(const Client& client, const v1::ReadTextFileRequest& request,
                        const ClientMethodResponder& responder, const ConfinedFilesOptions& options) {
    Result<std::string> path = confine_path(client, request.sessionId, request.path, PathUse::read);
    if (!path) return responder.fail(path.status().rpc_code(), path.status().message());
    if ((request.line.has_value() && *request.line < 1) || (request.limit.has_value() && *request.limit < 0)) {
        return responder.fail(error_code::invalid_params, "line starts at 1 and limit is not negative");
    }
    PlainFile file;
    std::string why;
    switch (file.open(*path, PlainFile::Mode::read, why)) {
        case PlainFile::Opened::ok: break;
        case PlainFile::Opened::missing:
            return responder.fail(error_code::resource_not_found, "no such file: " + request.path);
        case PlainFile::Opened::not_regular:
            return responder.fail(error_code::invalid_params, request.path + ": " + why);
        case PlainFile::Opened::failed:
            return responder.fail(error_code::internal_error, "cannot open " + request.path + ": " + why);
    }
    std::string bytes;
    if (!file.read_up_to(options.max_file_bytes, bytes, why)) {
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
    if (options.create_directories && !PlainFile::create_parents(*path, why)) {
        return responder.fail(error_code::internal_error, why);
    }
    PlainFile file;
    switch (file.open(*path, PlainFile::Mode::write, why)) {
        case PlainFile::Opened::ok: break;
        case PlainFile::Opened::missing:
            return responder.fail(error_code::resource_not_found,
                                  "cannot open " + request.path + " for writing: " + why);
        case PlainFile::Opened::not_regular:
            return responder.fail(error_code::invalid_params, request.path + ": " + why);
        case PlainFile::Opened::failed:
            return responder.fail(error_code::internal_error, "cannot open " + request.path + " for writing: " + why);
    }
    if (!file.write_all(request.content, why) || !file.close(why)) {
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
