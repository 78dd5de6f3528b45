// SPDX-License-Identifier: Apache-2.0
// Installing a binary agent: download, digest check, unpack, rename into place.
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "acp/catalogue.hpp"

#if ACP_WITH_REMOTE
#include <mutex>

#include "catalogue/archive_unpack.hpp"
#include "catalogue/sha256.hpp"
#include "transport/remote/remote_libraries.hpp"

namespace acp {
namespace {

Status make_folders(const std::string& path) {
    std::size_t slash = 0;
    while ((slash = path.find('/', slash + 1)) != std::string::npos) {
        std::string prefix = path.substr(0, slash);
        if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
            return Status(Errc::io_error, "cannot make " + prefix + ": " + std::strerror(errno));
        }
    }
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
        return Status(Errc::io_error, "cannot make " + path + ": " + std::strerror(errno));
    }
    return {};
}

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
    (void)::remove(path);
    return 0;
}

// Folders of our own making (the scratch folder, an older install): links in them are
// removed, never followed.
void remove_tree(const std::string& path) { (void)::nftw(path.c_str(), &remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

bool is_local_url(const std::string& url) {
    return url.rfind("file:///", 0) == 0 || url.rfind("http://127.0.0.1:", 0) == 0 ||
           url.rfind("http://127.0.0.1/", 0) == 0;
}

struct Download {
    std::FILE* file;
    std::uint64_t written = 0;
    std::uint64_t max;
    bool too_large = false;
};

size_t write_body(char* data, size_t size, size_t count, void* user) {
    auto* d = static_cast<Download*>(user);
    std::size_t bytes = size * count;
    if (d->written + bytes > d->max) {
        d->too_large = true;
        return 0;
    }
    d->written += bytes;
    return std::fwrite(data, 1, bytes, d->file);
}

Status download(const std::string& url, const std::string& path, const InstallOptions& options) {
    if (Status s = detail::load_remote_libraries(); !s) return s;
    const auto& c = detail::curl();
    static std::once_flag once;
    std::call_once(once, [&c] { c.global_init(CURL_GLOBAL_DEFAULT); });
    std::FILE* file = std::fopen(path.c_str(), "wbx");
    if (file == nullptr) return Status(Errc::io_error, "cannot write " + path + ": " + std::strerror(errno));
    Download d{file, 0, options.max_download_bytes};
    CURL* easy = c.easy_init();
    if (easy == nullptr) {
        std::fclose(file);
        return Status(Errc::internal, "curl_easy_init failed");
    }
    const char* protocols = options.allow_local_urls ? "https,http,file" : "https";
    c.easy_setopt(easy, CURLOPT_URL, url.c_str());
    c.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, protocols);
    c.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "https");
    c.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    c.easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
    c.easy_setopt(easy, CURLOPT_FAILONERROR, 1L);
    c.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    if (!options.ca_file.empty()) c.easy_setopt(easy, CURLOPT_CAINFO, options.ca_file.c_str());
    c.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
    // A server that stalls below 1 KiB/s for a minute is given up on.
    c.easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    c.easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, 60L);
    c.easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options.max_download_bytes));
    c.easy_setopt(easy, CURLOPT_WRITEFUNCTION, &write_body);
    c.easy_setopt(easy, CURLOPT_WRITEDATA, &d);
    CURLcode code = c.easy_perform(easy);
    c.easy_cleanup(easy);
    bool closed = std::fclose(file) == 0;
    if (d.too_large || code == CURLE_FILESIZE_EXCEEDED) {
        return Status(Errc::invalid_argument,
                      "the archive is larger than " + std::to_string(options.max_download_bytes) + " bytes");
    }
    if (code != CURLE_OK)
        return Status(Errc::io_error, "downloading the archive failed: " + std::string(c.easy_strerror(code)));
    if (!closed) return Status(Errc::io_error, "cannot write " + path);
    return {};
}
}  // namespace

Status install_binary(const Resolution& resolution, const InstallOptions& options) {
    if (resolution.kind != DistributionKind::binary || !resolution.binary || resolution.install_dir.empty()) {
        return Status(Errc::invalid_argument, "not a binary agent to install");
    }
    const BinaryDistribution& build = *resolution.binary;
    bool https = build.archive.rfind("https://", 0) == 0;
    if (!https && !(options.allow_local_urls && is_local_url(build.archive))) {
        return Status(Errc::invalid_argument, "the archive URL is not https: " + build.archive);
    }
    std::size_t slash = resolution.install_dir.rfind('/');
    if (slash == std::string::npos || slash == 0)
        return Status(Errc::invalid_argument, "install_dir is not an absolute path");
    std::string parent = resolution.install_dir.substr(0, slash);
    if (Status s = make_folders(parent); !s) return s;

    std::string scratch_template = resolution.install_dir + ".part-XXXXXX";
    if (::mkdtemp(scratch_template.data()) == nullptr) {
        return Status(Errc::io_error,
                      "cannot make a folder beside " + resolution.install_dir + ": " + std::strerror(errno));
    }
    const std::string scratch = scratch_template;
    const std::string archive = scratch + "/archive";
    const std::string unpacked = scratch + "/unpacked";
    auto fail = [&](Status s) {
        remove_tree(scratch);
        return s;
    };
    if (Status s = download(build.archive, archive, options); !s) return fail(s);
    if (!build.sha256.empty()) {
        auto digest = detail::sha256_file(archive);
        if (!digest) return fail(digest.status());
        if (*digest != build.sha256) {
            return fail(Status(Errc::invalid_argument,
                               "the archive's sha256 is " + *digest + ", the registry says " + build.sha256));
        }
    }
    if (::mkdir(unpacked.c_str(), 0755) != 0)
        return fail(Status(Errc::io_error, "cannot make " + unpacked + ": " + std::strerror(errno)));
    if (Status s = detail::unpack_archive(archive, unpacked, {options.max_unpacked_bytes, options.max_entries}); !s)
        return fail(s);
    const std::string& executable = resolution.spawn.argv.empty() ? std::string() : resolution.spawn.argv[0];
    std::string inside = executable.substr(std::min(executable.size(), resolution.install_dir.size()));
    struct stat st {};
    if (::lstat((unpacked + inside).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return fail(Status(Errc::invalid_argument, "the archive has no file " + build.cmd));
    }
    (void)::chmod((unpacked + inside).c_str(), (st.st_mode & 0755) | 0700);
    remove_tree(resolution.install_dir);  // an older, broken install of the same version
    if (::rename(unpacked.c_str(), resolution.install_dir.c_str()) != 0) {
        return fail(Status(Errc::io_error,
                           "cannot move the install into " + resolution.install_dir + ": " + std::strerror(errno)));
    }
    remove_tree(scratch);
    return {};
}

}  // namespace acp
#else
namespace acp {

Status install_binary(const Resolution&, const InstallOptions&) {
    return Status(Errc::unsupported,
                  "installing agents needs a libacp built with ACP_WITH_REMOTE (libcurl, libarchive)");
}

}  // namespace acp
#endif
