// SPDX-License-Identifier: Apache-2.0
#include "catalogue/archive_unpack.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "platform/permanent_library.hpp"

#ifndef ACP_LIBARCHIVE_SONAME
#define ACP_LIBARCHIVE_SONAME "libarchive.so.13"
#endif

namespace acp::detail {
namespace {

struct ArchiveLibrary {
    decltype(&::archive_read_new) read_new;
    decltype(&::archive_read_support_filter_all) support_filter_all;
    decltype(&::archive_read_support_format_all) support_format_all;
    decltype(&::archive_read_open_filename) open_filename;
    decltype(&::archive_read_next_header) next_header;
    decltype(&::archive_read_data_block) data_block;
    decltype(&::archive_read_free) read_free;
    decltype(&::archive_error_string) error_string;
    decltype(&::archive_entry_pathname) entry_pathname;
    decltype(&::archive_entry_filetype) entry_filetype;
    decltype(&::archive_entry_size) entry_size;
    decltype(&::archive_entry_perm) entry_perm;
    decltype(&::archive_entry_symlink) entry_symlink;
    decltype(&::archive_entry_hardlink) entry_hardlink;
};

ArchiveLibrary library;

template <class Function>
void bind(const PermanentLibrary& handle, Function& slot, const char* symbol, std::string& error) {
    slot = nullptr;
    if (!error.empty()) return;
    void* address = handle.symbol(symbol, &error);
    if (address != nullptr) slot = reinterpret_cast<Function>(address);
}

Status load_libarchive() {
    static std::once_flag once;
    static Status status;
    std::call_once(once, [] {
        // Never unloaded, as libcurl: nothing gains from it.
        static const PermanentLibrary handle(ACP_LIBARCHIVE_SONAME);
        std::string error = handle.error();
        if (error.empty()) {
            ArchiveLibrary& a = library;
            bind(handle, a.read_new, "archive_read_new", error);
            bind(handle, a.support_filter_all, "archive_read_support_filter_all", error);
            bind(handle, a.support_format_all, "archive_read_support_format_all", error);
            bind(handle, a.open_filename, "archive_read_open_filename", error);
            bind(handle, a.next_header, "archive_read_next_header", error);
            bind(handle, a.data_block, "archive_read_data_block", error);
            bind(handle, a.read_free, "archive_read_free", error);
            bind(handle, a.error_string, "archive_error_string", error);
            bind(handle, a.entry_pathname, "archive_entry_pathname", error);
            bind(handle, a.entry_filetype, "archive_entry_filetype", error);
            bind(handle, a.entry_size, "archive_entry_size", error);
            bind(handle, a.entry_perm, "archive_entry_perm", error);
            bind(handle, a.entry_symlink, "archive_entry_symlink", error);
            bind(handle, a.entry_hardlink, "archive_entry_hardlink", error);
        }
        if (!error.empty())
            status = Status(Errc::unsupported,
                            std::string("installing agents needs ") + ACP_LIBARCHIVE_SONAME + " (" + error + ")");
    });
    return status;
}

// The components of a relative path without "." and empty ones; false when the path is
// absolute or holds "..".
bool split_relative(const std::string& path, std::vector<std::string>& parts) {
    if (path.empty() || path.front() == '/') return false;
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string::npos) end = path.size();
        std::string part = path.substr(start, end - start);
        if (part == "..") return false;
        if (!part.empty() && part != ".") parts.push_back(part);
        start = end + 1;
    }
    return true;
}

// A link target, read from the link's own folder, stays inside the target (lexically;
// no link is ever followed while unpacking, so the folder is where the path says).
bool link_stays_inside(const std::vector<std::string>& link_parts, const std::string& target) {
    if (target.empty() || target.front() == '/') return false;
    std::size_t depth = link_parts.size() - 1;  // the folders above the link
    std::size_t start = 0;
    while (start <= target.size()) {
        std::size_t end = target.find('/', start);
        if (end == std::string::npos) end = target.size();
        std::string part = target.substr(start, end - start);
        if (part == "..") {
            if (depth == 0) return false;
            --depth;
        } else if (!part.empty() && part != ".") {
            ++depth;
        }
        start = end + 1;
    }
    return true;
}

std::string errno_text() { return std::strerror(errno); }

// Makes each folder of parts[0..count) under target, refusing any that exists as
// something else than a real folder (a link among them would lead the write out).
Status make_folders(const std::string& target, const std::vector<std::string>& parts, std::size_t count) {
    std::string path = target;
    for (std::size_t i = 0; i < count; ++i) {
        path += "/" + parts[i];
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return Status(Errc::invalid_argument, "the archive writes through a non-folder: " + path);
            continue;
        }
        if (::mkdir(path.c_str(), 0755) != 0)
            return Status(Errc::io_error, "cannot make " + path + ": " + errno_text());
    }
    return {};
}

class Reader {
public:
    Reader() : archive_(library.read_new()) {}
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;
    ~Reader() {
        if (archive_ != nullptr) library.read_free(archive_);
    }
    struct archive* get() const {
        return archive_;
    }
    std::string error() const {
        const char* text = library.error_string(archive_);
        return text != nullptr ? text : "unknown error";
    }

private:
    struct archive* archive_;
};

}  // namespace

Status unpack_archive(const std::string& archive_path, const std::string& target, const UnpackLimits& limits) {
    if (Status s = load_libarchive(); !s) return s;
    Reader reader;
    if (reader.get() == nullptr) return Status(Errc::internal, "archive_read_new failed");
    library.support_filter_all(reader.get());
    library.support_format_all(reader.get());
    if (library.open_filename(reader.get(), archive_path.c_str(), 65536) != ARCHIVE_OK) {
        return Status(Errc::invalid_argument, "not an archive libarchive reads: " + reader.error());
    }
    std::uint64_t total = 0;
    std::size_t entries = 0;
    for (;;) {
        struct archive_entry* entry = nullptr;
        int r = library.next_header(reader.get(), &entry);
        if (r == ARCHIVE_EOF) break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
            return Status(Errc::invalid_argument, "a broken archive: " + reader.error());
        if (++entries > limits.max_entries) {
            return Status(Errc::invalid_argument,
                          "the archive has more than " + std::to_string(limits.max_entries) + " entries");
        }
        const char* name_c = library.entry_pathname(entry);
        std::string name = name_c != nullptr ? name_c : "";
        std::vector<std::string> parts;
        if (!split_relative(name, parts))
            return Status(Errc::invalid_argument, "the archive holds a path out of its folder: " + name);
        if (parts.empty()) continue;  // "./" itself
        if (library.entry_hardlink(entry) != nullptr)
            return Status(Errc::invalid_argument, "the archive holds a hard link: " + name);
        std::string path = target;
        for (const auto& part : parts) path += "/" + part;
        auto type = library.entry_filetype(entry);
        if (type == AE_IFDIR) {
            if (Status s = make_folders(target, parts, parts.size()); !s) return s;
            continue;
        }
        if (Status s = make_folders(target, parts, parts.size() - 1); !s) return s;
        if (type == AE_IFLNK) {
            const char* link = library.entry_symlink(entry);
            std::string link_target = link != nullptr ? link : "";
            if (!link_stays_inside(parts, link_target)) {
                return Status(Errc::invalid_argument,
                              "the archive holds a link out of its folder: " + name + " -> " + link_target);
            }
            if (::symlink(link_target.c_str(), path.c_str()) != 0)
                return Status(Errc::io_error, "cannot link " + path + ": " + errno_text());
            continue;
        }
        if (type != AE_IFREG)
            return Status(Errc::invalid_argument, "the archive holds a device, FIFO or socket: " + name);

        auto declared = library.entry_size(entry);
        if (declared < 0 || static_cast<std::uint64_t>(declared) > limits.max_total_bytes - total) {
            return Status(Errc::invalid_argument,
                          "the archive unpacks to more than " + std::to_string(limits.max_total_bytes) + " bytes");
        }
        // Owner bits of the archive, never set-id or sticky bits.
        mode_t mode = static_cast<mode_t>(library.entry_perm(entry)) & 0755;
        int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode | 0600);
        if (fd < 0) return Status(Errc::io_error, "cannot write " + path + ": " + errno_text());
        std::uint64_t end_of_file = 0;
        Status written;
        for (;;) {
            const void* block = nullptr;
            size_t size = 0;
            la_int64_t offset = 0;
            int b = library.data_block(reader.get(), &block, &size, &offset);
            if (b == ARCHIVE_EOF) break;
            if (b != ARCHIVE_OK && b != ARCHIVE_WARN) {
                written = Status(Errc::invalid_argument, "a broken archive member " + name + ": " + reader.error());
                break;
            }
            // The member's own data, holes included, counts against the bound: an entry
            // that declares less than it holds is caught here.
            std::uint64_t end = static_cast<std::uint64_t>(offset) + size;
            if (offset < 0 || end > limits.max_total_bytes - total) {
                written = Status(Errc::invalid_argument, "the archive unpacks to more than " +
                                                             std::to_string(limits.max_total_bytes) + " bytes");
                break;
            }
            if (end > end_of_file) end_of_file = end;
            const char* data = static_cast<const char*>(block);
            std::size_t done = 0;
            while (done < size) {
                ssize_t n =
                    ::pwrite(fd, data + done, size - done, static_cast<off_t>(offset) + static_cast<off_t>(done));
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) {
                    written = Status(Errc::io_error, "cannot write " + path + ": " + errno_text());
                    break;
                }
                done += static_cast<std::size_t>(n);
            }
            if (!written) break;
        }
        std::uint64_t size_on_disk = std::max<std::uint64_t>(end_of_file, static_cast<std::uint64_t>(declared));
        if (written && ::ftruncate(fd, static_cast<off_t>(size_on_disk)) != 0)
            written = Status(Errc::io_error, "cannot write " + path + ": " + errno_text());
        ::close(fd);
        if (!written) return written;
        total += size_on_disk;
    }
    return {};
}

}  // namespace acp::detail
