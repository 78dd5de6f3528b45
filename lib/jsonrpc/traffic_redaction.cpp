// SPDX-License-Identifier: Apache-2.0
#include "jsonrpc/traffic_redaction.hpp"

#include <array>
#include <cctype>

#include "jsonrpc/json.hpp"
#include "support/utf8.hpp"

namespace acp::detail {

namespace {

using Allocator = rapidjson::Document::AllocatorType;

constexpr std::array<std::string_view, 7> kSecretWords = {"token", "key",        "secret", "passw",
                                                          "auth",  "credential", "cookie"};

void set_redacted(JsonValue& value, Allocator& allocator) {
    value.SetString(kRedactedValue.data(), static_cast<rapidjson::SizeType>(kRedactedValue.size()), allocator);
}

void set_string(JsonValue& value, const std::string& text, Allocator& allocator) {
    value.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
}

JsonValue* find_mutable(JsonValue& object, const char* key) {
    auto it = object.FindMember(key);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

void redact_name_value_list(JsonValue* list, Allocator& allocator) {
    if (list == nullptr || !list->IsArray()) return;
    for (auto& entry : list->GetArray()) {
        if (!entry.IsObject()) continue;
        if (JsonValue* value = find_mutable(entry, "value")) set_redacted(*value, allocator);
    }
}

// "--token=VALUE" → "--token=[redacted]", "API_KEY=VALUE" → "API_KEY=[redacted]"; returns
// whether the argument is a secret-looking flag without a value of its own (the next
// argument is its value).
bool redact_argument(JsonValue& argument, Allocator& allocator) {
    if (!argument.IsString()) return false;
    const std::string_view text = string_view_of(argument);
    const std::size_t dashes = text.find_first_not_of('-');
    if (dashes == std::string_view::npos) return false;
    const std::size_t equals = text.find('=');
    const std::string_view name = text.substr(dashes, equals == std::string_view::npos ? text.npos : equals - dashes);
    if (!looks_secret_name(name)) return false;
    if (equals != std::string_view::npos) {
        set_string(argument, std::string(text.substr(0, equals + 1)) + std::string(kRedactedValue), allocator);
        return false;
    }
    return dashes > 0;
}

void redact_arguments(JsonValue* args, Allocator& allocator) {
    if (args == nullptr || !args->IsArray()) return;
    bool value_follows = false;
    for (auto& argument : args->GetArray()) {
        if (value_follows) {
            // Whatever follows the flag, even something that looks like another flag: a
            // secret may start with '-'.
            set_redacted(argument, allocator);
            value_follows = false;
            continue;
        }
        value_follows = redact_argument(argument, allocator);
    }
}

void redact_server(JsonValue& server, Allocator& allocator) {
    if (!server.IsObject()) return;
    redact_name_value_list(find_mutable(server, "env"), allocator);
    redact_name_value_list(find_mutable(server, "headers"), allocator);
    redact_arguments(find_mutable(server, "args"), allocator);
    JsonValue* url = find_mutable(server, "url");
    if (url != nullptr && url->IsString()) set_string(*url, redact_url(string_view_of(*url)), allocator);
}

// Inside `_meta`: every member whose name looks secret, at any depth.
void redact_meta(JsonValue& value, Allocator& allocator) {
    if (value.IsArray()) {
        for (auto& item : value.GetArray()) redact_meta(item, allocator);
        return;
    }
    if (!value.IsObject()) return;
    for (auto& member : value.GetObject()) {
        if (looks_secret_name(string_view_of(member.name))) {
            set_redacted(member.value, allocator);
        } else {
            redact_meta(member.value, allocator);
        }
    }
}

// Walks the whole message: mcpServers and _meta may sit anywhere (params, results, an
// extension's payload).
void redact_tree(JsonValue& value, Allocator& allocator) {
    if (value.IsArray()) {
        for (auto& item : value.GetArray()) redact_tree(item, allocator);
        return;
    }
    if (!value.IsObject()) return;
    for (auto& member : value.GetObject()) {
        const std::string_view name = string_view_of(member.name);
        if (name == "mcpServers" && member.value.IsArray()) {
            for (auto& server : member.value.GetArray()) redact_server(server, allocator);
        } else if (name == "_meta") {
            redact_meta(member.value, allocator);
        }
        redact_tree(member.value, allocator);
    }
}

}  // namespace

bool looks_secret_name(std::string_view name) {
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view word : kSecretWords) {
        if (lower.find(word) != std::string::npos) return true;
    }
    return false;
}

std::string redact_url(std::string_view url) {
    std::string out;
    std::size_t position = 0;
    const std::size_t scheme_end = url.find("://");
    if (scheme_end != std::string_view::npos) {
        const std::size_t authority = scheme_end + 3;
        const std::size_t authority_end = std::min(url.find_first_of("/?#", authority), url.size());
        const std::size_t at = url.substr(0, authority_end).rfind('@');
        out.append(url.substr(0, authority));
        position = authority;
        if (at != std::string_view::npos && at >= authority) {
            out.append(kRedactedValue);
            position = at;  // keeps the '@'
        }
    }
    const std::size_t query = url.find('?', position);
    const std::size_t fragment = url.find('#', position);
    const std::size_t path_end = std::min(std::min(query, fragment), url.size());
    out.append(url.substr(position, path_end - position));
    if (query != std::string_view::npos && query < std::min(fragment, url.size())) {
        const std::string_view parameters = url.substr(query + 1, std::min(fragment, url.size()) - query - 1);
        out.push_back('?');
        std::size_t start = 0;
        while (start <= parameters.size()) {
            const std::size_t end = std::min(parameters.find('&', start), parameters.size());
            const std::string_view parameter = parameters.substr(start, end - start);
            const std::size_t equals = parameter.find('=');
            // A bare "?secret" is a value too.
            if (equals != std::string_view::npos) out.append(parameter.substr(0, equals + 1));
            if (!parameter.empty()) out.append(kRedactedValue);
            if (end < parameters.size()) out.push_back('&');
            start = end + 1;
        }
    }
    if (fragment != std::string_view::npos) {
        out.push_back('#');
        out.append(kRedactedValue);
    }
    return out;
}

bool contains_secrets(std::string_view line) {
    return line.find("\"mcpServers\"") != std::string_view::npos || line.find("\"_meta\"") != std::string_view::npos;
}

std::string redact_secrets(std::string_view line) {
    rapidjson::Document document;
    document.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
    if (document.HasParseError()) return std::string(line);
    redact_tree(document, document.GetAllocator());
    return to_json_text(document);
}

std::string loggable_head(std::string_view head, std::size_t max_bytes) {
    head = head.substr(0, max_bytes);
    if (contains_secrets(head)) return "[withheld: it may carry secrets (mcpServers or _meta)]";
    // The agent chose these bytes and a host may print its log as it comes: control
    // characters (terminal escapes, NUL) and what is not UTF-8 are shown as \xNN.
    std::string out;
    out.reserve(head.size());
    for (std::size_t i = 0; i < head.size();) {
        auto c = static_cast<unsigned char>(head[i]);
        const Utf8Step step = utf8_decode(head.substr(i));
        if (c < 0x80 ? (c >= 0x20 && c != 0x7f) : step.valid) {
            out.append(head, i, step.length);
            i += step.length;
            continue;
        }
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\x";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xf]);
        ++i;
    }
    return out;
}

}  // namespace acp::detail
