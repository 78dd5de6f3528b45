// SPDX-License-Identifier: Apache-2.0
#include "attachments.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

#include "sanitize.hpp"

namespace chat {

namespace v2 = acp::v2;

namespace {

// Entries read from one directory for Tab, and names offered: a huge directory costs a bound.
constexpr std::size_t kDirectoryEntries = 10000;
constexpr std::size_t kCompletions = 1000;

std::string real_path(const std::string& path) {
    std::unique_ptr<char, decltype(&std::free)> real(realpath(path.c_str(), nullptr), &std::free);
    return real ? std::string(real.get()) : std::string();
}

bool inside(const std::string& path, const std::string& root) {
    if (root.empty() || path.empty()) return false;
    if (root == "/") return true;
    return path == root ||
           (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

bool valid_utf8(const std::string& text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        if (n == 0 || i + n > text.size()) return false;
        for (std::size_t k = 1; k < n; ++k) {
            if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
        }
        i += n;
    }
    return true;
}

std::string file_uri(const std::string& path) {
    static const char* const kHex = "0123456789ABCDEF";
    std::string uri = "file://";
    for (const char ch : path) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c) || std::strchr("/-._~", c) != nullptr) {
            uri += ch;
        } else {
            uri += '%';
            uri += kHex[c >> 4];
            uri += kHex[c & 15];
        }
    }
    return uri;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::optional<v2::ContentBlock> image_block(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot read " + path;
        return std::nullopt;
    }
    std::string bytes;
    char buffer[65536];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        bytes.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (bytes.size() > kMaxImageBytes) {
            error = path + " is larger than " + std::to_string(kMaxImageBytes) + " bytes";
            return std::nullopt;
        }
    }
    // The type from the content, never from the name.
    auto starts = [&bytes](std::string_view magic, std::size_t at = 0) {
        return bytes.compare(at, magic.size(), magic) == 0;
    };
    std::string mime;
    if (starts("\x89PNG\r\n\x1a\n")) {
        mime = "image/png";
    } else if (starts("\xff\xd8\xff")) {
        mime = "image/jpeg";
    } else if (starts("GIF87a") || starts("GIF89a")) {
        mime = "image/gif";
    } else if (bytes.size() >= 12 && starts("RIFF") && starts("WEBP", 8)) {
        mime = "image/webp";
    } else {
        error = path + " is not a PNG, JPEG, GIF or WebP image";
        return std::nullopt;
    }
    static const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    v2::ImageContent image;
    image.mimeType = mime;
    image.data.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const auto byte = [&bytes](std::size_t k) {
            return k < bytes.size() ? static_cast<unsigned char>(bytes[k]) : 0u;
        };
        const unsigned n = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
        image.data += kBase64[(n >> 18) & 63];
        image.data += kBase64[(n >> 12) & 63];
        image.data += i + 1 < bytes.size() ? kBase64[(n >> 6) & 63] : '=';
        image.data += i + 2 < bytes.size() ? kBase64[n & 63] : '=';
    }
    return v2::ContentBlock::make_image(std::move(image));
}

Attachments attach(const std::string& text, const Roots& roots, bool embed) {
    Attachments out;
    v2::TextContent content;
    content.text = text;
    out.blocks.push_back(v2::ContentBlock::make_text(std::move(content)));
    std::vector<std::string> real_roots;
    for (const std::string& root : roots.additional) real_roots.push_back(real_path(root));
    real_roots.insert(real_roots.begin(), real_path(roots.cwd));
    std::vector<std::string> attached;
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (text[at] != '@' || (at > 0 && !is_space(text[at - 1]))) continue;
        std::size_t end = at + 1;
        while (end < text.size() && !is_space(text[end])) ++end;
        std::string word = text.substr(at + 1, end - at - 1);
        at = end;
        // "see @notes.md." : the sentence's full stop is not part of the name.
        std::string path;
        struct stat info {};
        for (;;) {
            if (word.empty()) break;
            path = word[0] == '/' ? word : roots.cwd + "/" + word;
            if (lstat(path.c_str(), &info) == 0) break;
            if (std::strchr(".,;:!?)'\"", word.back()) == nullptr) {
                word.clear();
                break;
            }
            word.pop_back();
        }
        if (word.empty()) continue;  // names nothing: an @mention stays text
        const std::string real = real_path(path);
        if (std::none_of(real_roots.begin(), real_roots.end(), [&](const std::string& r) { return inside(real, r); })) {
            out.error = "@" + sanitize(word) + " is outside the session's directories";
            return out;
        }
        if (stat(real.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
            out.error = "@" + sanitize(word) + " is not a regular file";
            return out;
        }
        if (std::find(attached.begin(), attached.end(), real) != attached.end()) continue;
        if (attached.size() == kMaxAttachments) {
            out.error = "more than " + std::to_string(kMaxAttachments) + " files in one prompt";
            return out;
        }
        attached.push_back(real);
        const std::string name = real.substr(real.rfind('/') + 1);
        const auto size = static_cast<std::uint64_t>(info.st_size);
        std::string data;
        if (embed && size <= kEmbedBytes) {
            std::ifstream file(real, std::ios::binary);
            if (!file) {
                out.error = "cannot read @" + sanitize(word) + ": " + std::strerror(errno);
                return out;
            }
            data.resize(kEmbedBytes + 1);
            file.read(&data[0], static_cast<std::streamsize>(data.size()));
            data.resize(static_cast<std::size_t>(file.gcount()));
        }
        if (embed && data.size() <= kEmbedBytes && data.size() == size && valid_utf8(data)) {
            v2::TextResourceContents contents;
            contents.uri = file_uri(real);
            contents.text = std::move(data);
            v2::EmbeddedResource resource;
            resource.resource = v2::EmbeddedResourceResource::make_text(std::move(contents));
            out.blocks.push_back(v2::ContentBlock::make_resource(std::move(resource)));
            out.notes.push_back("attached " + sanitize(word) + " (" + std::to_string(size) + " bytes, its text)");
        } else {
            v2::ResourceLink link;
            link.name = name;
            link.uri = file_uri(real);
            link.size = size;
            out.blocks.push_back(v2::ContentBlock::make_resource_link(std::move(link)));
            out.notes.push_back("attached " + sanitize(word) + " (" + std::to_string(size) + " bytes, as a link)");
        }
    }
    return out;
}

std::vector<std::string> complete_path(const std::string& word, const std::string& cwd) {
    if (word.empty() || word[0] != '@') return {};
    const std::string rel = word.substr(1);
    if (!rel.empty() && rel[0] == '/') return {};
    const std::size_t slash = rel.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : rel.substr(0, slash + 1);
    const std::string prefix = rel.substr(dir.size());
    for (std::size_t from = 0; from < dir.size();) {  // no ".." step out of the cwd
        const std::size_t next = dir.find('/', from);
        if (dir.compare(from, next - from, "..") == 0) return {};
        from = next + 1;
    }
    const std::string root = real_path(cwd);
    const std::string real_dir = real_path(cwd + "/" + dir);
    if (!inside(real_dir, root)) return {};
    struct CloseDir {
        void operator()(DIR* dir) const { closedir(dir); }
    };
    std::unique_ptr<DIR, CloseDir> listing(opendir(real_dir.c_str()));
    if (!listing) return {};
    std::vector<std::string> names;
    std::size_t read = 0;
    while (const dirent* entry = readdir(listing.get())) {
        if (++read > kDirectoryEntries || names.size() == kCompletions) break;
        const std::string name = entry->d_name;
        if (name == "." || name == ".." || name.compare(0, prefix.size(), prefix) != 0) continue;
        if (name[0] == '.' && (prefix.empty() || prefix[0] != '.')) continue;  // hidden unless asked
        // A name the prompt could not hold as one word, or the screen not show, is not offered.
        if (std::any_of(name.begin(), name.end(),
                        [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == 0x7f; }) ||
            sanitize(name) != name) {
            continue;
        }
        struct stat info {};
        const bool directory = stat((real_dir + "/" + name).c_str(), &info) == 0 && S_ISDIR(info.st_mode);
        names.push_back("@" + dir + name + (directory ? "/" : ""));
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace chat
