// SPDX-License-Identifier: Apache-2.0
// The registry from its URL, kept in a per-user cache with its age (fetch_registry).
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>

#include "acp/catalogue.hpp"
#include "catalogue/catalogue_json.hpp"
#include "platform/file_replace.hpp"

#if ACP_WITH_REMOTE
#include <mutex>

#include "transport/remote/remote_libraries.hpp"
#endif

namespace acp {
namespace {

#if ACP_WITH_REMOTE
struct Body {
    std::string text;
    bool too_large = false;
};

size_t append_body(char* data, size_t size, size_t count, void* user) {
    auto* body = static_cast<Body*>(user);
    std::size_t bytes = size * count;
    if (body->text.size() + bytes > detail::kMaxCatalogueTextBytes) {
        body->too_large = true;
        return 0;
    }
    body->text.append(data, bytes);
    return bytes;
}

Result<std::string> fetch_text(const RegistryFetchOptions& options) {
    if (Status s = detail::load_remote_libraries(); !s) return s;
    const auto& c = detail::curl();
    static std::once_flag once;
    std::call_once(once, [&c] { c.global_init(CURL_GLOBAL_DEFAULT); });
    CURL* easy = c.easy_init();
    if (easy == nullptr) return Status(Errc::internal, "curl_easy_init failed");
    Body body;
    c.easy_setopt(easy, CURLOPT_URL, options.url.c_str());
    // https only, also after a redirect: the registry decides what runs on this machine.
    c.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "https");
    c.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "https");
    c.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    c.easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
    c.easy_setopt(easy, CURLOPT_FAILONERROR, 1L);
    c.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    c.easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
    c.easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(detail::kMaxCatalogueTextBytes));
    if (!options.ca_file.empty()) c.easy_setopt(easy, CURLOPT_CAINFO, options.ca_file.c_str());
    c.easy_setopt(easy, CURLOPT_WRITEFUNCTION, &append_body);
    c.easy_setopt(easy, CURLOPT_WRITEDATA, &body);
    CURLcode code = c.easy_perform(easy);
    c.easy_cleanup(easy);
    if (body.too_large || code == CURLE_FILESIZE_EXCEEDED) {
        return Status(Errc::invalid_argument,
                      "the registry is larger than " + std::to_string(detail::kMaxCatalogueTextBytes) + " bytes");
    }
    if (code != CURLE_OK) return Status(Errc::io_error, c.easy_strerror(code));
    return std::move(body.text);
}
#else
Result<std::string> fetch_text(const RegistryFetchOptions&) {
    return Status(Errc::unsupported, "fetching needs a libacp built with ACP_WITH_REMOTE (libcurl)");
}
#endif

std::chrono::seconds age_of(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::chrono::seconds(0);
    std::time_t now = std::time(nullptr);
    return std::chrono::seconds(now > st.st_mtime ? now - st.st_mtime : 0);
}

}  // namespace

FetchedRegistry fetch_registry(const RegistryFetchOptions& options) {
    FetchedRegistry fetched;
    const std::string cache = options.cache_file.empty() ? registry_cache_path() : options.cache_file;
    std::optional<Catalogue> cached;
    std::string cache_problem;
    if (!cache.empty()) {
        if (auto read = Catalogue::from_registry_file(cache)) {
            cached = std::move(read.value());
            fetched.age = age_of(cache);
        } else if (read.status().code() != Errc::unsupported) {  // unsupported: no cache yet
            cache_problem = read.status().message();
        }
    }
    if (cached && fetched.age < options.max_age) {
        fetched.catalogue = std::move(*cached);
        fetched.source = RegistrySource::cache;
        return fetched;
    }
    std::string failure;
    if (options.url.rfind("https://", 0) != 0) {
        failure = "the registry URL is not https: " + options.url;
    } else if (auto text = fetch_text(options); !text) {
        failure = "fetching " + options.url + " failed: " + text.status().message();
    } else if (auto parsed = Catalogue::from_registry_json(*text); !parsed) {
        failure = options.url + " is not a registry: " + parsed.status().message();
    } else {
        if (!cache.empty()) {
            if (Status written = detail::replace_file(cache, *text); !written)
                fetched.notes.push_back(written.message());
        }
        fetched.catalogue = std::move(parsed.value());
        fetched.source = RegistrySource::network;
        fetched.age = std::chrono::seconds(0);
        return fetched;
    }
    fetched.notes.push_back(failure);
    if (!cache_problem.empty()) fetched.notes.push_back(cache_problem);
    if (cached) {
        fetched.catalogue = std::move(*cached);
        fetched.source = RegistrySource::cache;
        fetched.notes.push_back("using the cached registry " + cache + ", " + std::to_string(fetched.age.count()) +
                                " s old");
        return fetched;
    }
    fetched.catalogue = Catalogue::bundled();
    fetched.source = RegistrySource::bundled;
    fetched.age = std::chrono::seconds(0);
    fetched.notes.push_back("using the registry snapshot built into libacp");
    return fetched;
}

}  // namespace acp
