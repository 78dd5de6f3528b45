// SPDX-License-Identifier: Apache-2.0
// A regular file opened for the fs guard's handlers (acp/fs_guard.hpp), never through a
// link in its last name and never blocking on a FIFO or device: O_NOFOLLOW | O_NONBLOCK on
// POSIX; FILE_FLAG_OPEN_REPARSE_POINT on Windows, refusing a reparse point (symlink,
// junction) where a file was expected.
//
//   PlainFile file;
//   if (file.open(path, PlainFile::Mode::read, why) != PlainFile::Opened::ok) ...
//   file.read_up_to(limit, bytes, why);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace acp::detail {

class PlainFile {
public:
    enum class Mode { read, write };  // write: created when missing, truncated once known regular
    enum class Opened { ok, missing, not_regular, failed };

    PlainFile() = default;
    ~PlainFile();
    PlainFile(const PlainFile&) = delete;
    PlainFile& operator=(const PlainFile&) = delete;

    // why says what failed (not_regular: what it is instead).
    Opened open(const std::string& path, Mode mode, std::string& why);
    // Up to limit + 1 bytes (one more tells that there was more).
    bool read_up_to(std::size_t limit, std::string& bytes, std::string& why);
    bool write_all(std::string_view content, std::string& why);
    // Closes, reporting the close's own failure: a write may fail only there (NFS, quotas).
    bool close(std::string& why);

    // mkdir -p of the directories on path up to its last name.
    static bool create_parents(const std::string& path, std::string& why);

private:
    std::intptr_t native_ = -1;  // the descriptor (POSIX) or the HANDLE (Windows); -1: none
};

}  // namespace acp::detail
