// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/remote_headers.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

namespace acp::detail {

namespace {

constexpr std::size_t kMinSecretBytes = 4;
constexpr std::string_view kRedacted = "[redacted]";

bool is_token_char(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

}  // namespace

Status check_remote_headers(const std::vector<std::pair<std::string, std::string>>& headers) {
    for (const auto& [name, value] : headers) {
        bool name_ok = !name.empty();
        for (unsigned char c : name) name_ok = name_ok && c != 0 && is_token_char(c);
        if (!name_ok) return Status(Errc::invalid_argument, "header name '" + name + "' is not an HTTP token");
        for (unsigned char c : value) {
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                return Status(Errc::invalid_argument,
                              "the value of header '" + name + "' holds a control character (not sent)");
            }
        }
    }
    return Status();
}

std::vector<std::string> header_secrets(const std::vector<std::pair<std::string, std::string>>& headers) {
    std::vector<std::string> secrets;
    auto add = [&secrets](std::string_view text) {
        if (text.size() >= kMinSecretBytes && std::find(secrets.begin(), secrets.end(), text) == secrets.end()) {
            secrets.emplace_back(text);
        }
    };
    for (const auto& entry : headers) {
        std::string_view value = entry.second;
        add(value);
        bool first = true;
        while (!value.empty()) {
            std::size_t start = value.find_first_not_of(" \t");
            if (start == std::string_view::npos) break;
            value.remove_prefix(start);
            std::size_t end = std::min(value.find_first_of(" \t"), value.size());
            if (!first) add(value.substr(0, end));
            first = false;
            value.remove_prefix(end);
        }
    }
    // Longest first: a whole value is replaced before a word of it.
    std::sort(secrets.begin(), secrets.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    return secrets;
}

std::string without_secrets(std::string_view text, const std::vector<std::string>& secrets) {
    std::string out(text);
    for (const auto& secret : secrets) {
        for (std::size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + kRedacted.size())) {
            out.replace(at, secret.size(), kRedacted);
        }
    }
    return out;
}

LogSink redacting_sink(LogSink sink, std::vector<std::string> secrets) {
    if (!sink || secrets.empty()) return sink;
    return [sink = std::move(sink), secrets = std::move(secrets)](const LogRecord& record) {
        std::string message = without_secrets(record.message, secrets);
        sink(LogRecord{record.level, record.source, message});
    };
}

}  // namespace acp::detail
