// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/remote_url.hpp"

#include <cctype>
#include <string_view>

namespace acp::detail {

namespace {

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
    }
    return true;
}

Status malformed(const std::string& why) { return Status(Errc::invalid_argument, "remote agent URL: " + why); }

}  // namespace

Result<RemoteUrl> parse_remote_url(const std::string& url) {
    RemoteUrl out;
    out.full = url;
    std::string_view rest(url);
    struct Scheme {
        std::string_view prefix;
        RemoteKind kind;
        bool tls;
        int port;
    };
    static constexpr Scheme kSchemes[] = {{"wss://", RemoteKind::websocket, true, 443},
                                          {"ws://", RemoteKind::websocket, false, 80},
                                          {"https://", RemoteKind::http, true, 443},
                                          {"http://", RemoteKind::http, false, 80}};
    const Scheme* scheme = nullptr;
    for (const auto& s : kSchemes) {
        if (starts_with_nocase(rest, s.prefix)) {
            scheme = &s;
            break;
        }
    }
    if (scheme == nullptr) {
        return Status(Errc::unsupported, "remote agent URL: the scheme must be ws, wss, http or https");
    }
    out.kind = scheme->kind;
    out.tls = scheme->tls;
    out.port = scheme->port;
    rest.remove_prefix(scheme->prefix.size());

    std::size_t authority_end = rest.find_first_of("/?#");
    std::string_view authority = rest.substr(0, authority_end);
    std::string_view tail = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
    if (std::size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
    if (authority.empty()) return malformed("no host");

    std::string_view port_text;
    if (authority.front() == '[') {
        std::size_t close = authority.find(']');
        if (close == std::string_view::npos) return malformed("unclosed '[' in the host");
        out.host = std::string(authority.substr(1, close - 1));
        std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return malformed("unexpected characters after the host");
            port_text = after.substr(1);
        }
    } else {
        std::size_t colon = authority.find(':');
        out.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    }
    if (out.host.empty()) return malformed("no host");
    if (!port_text.empty()) {
        int port = 0;
        for (char c : port_text) {
            if (c < '0' || c > '9' || port > 65535) return malformed("the port is not a number from 1 to 65535");
            port = port * 10 + (c - '0');
        }
        if (port < 1 || port > 65535) return malformed("the port is not a number from 1 to 65535");
        out.port = port;
    }
    if (std::size_t hash = tail.find('#'); hash != std::string_view::npos) tail = tail.substr(0, hash);
    out.path = tail.empty() || tail.front() != '/' ? "/" + std::string(tail) : std::string(tail);

    std::string_view path_only(out.path);
    path_only = path_only.substr(0, path_only.find('?'));
    bool ipv6 = out.host.find(':') != std::string::npos;
    out.redacted = std::string(scheme->prefix) + (ipv6 ? "[" + out.host + "]" : out.host) + ":" +
                   std::to_string(out.port) + std::string(path_only);
    return out;
}

}  // namespace acp::detail
