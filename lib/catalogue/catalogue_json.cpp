// SPDX-License-Identifier: Apache-2.0
#include "catalogue/catalogue_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstring>
#include <optional>

namespace acp::detail {
namespace {

using Value = rapidjson::Value;

constexpr std::size_t kMaxIdBytes = 64;
constexpr std::size_t kMaxVersionBytes = 64;
constexpr std::size_t kMaxNameBytes = 256;
constexpr std::size_t kMaxDescriptionBytes = 4096;
constexpr std::size_t kMaxUrlBytes = 2048;
constexpr std::size_t kMaxPackageBytes = 256;
constexpr std::size_t kMaxArgs = 64;
constexpr std::size_t kMaxArgBytes = 4096;
constexpr std::size_t kMaxEnv = 64;
constexpr std::size_t kMaxEnvNameBytes = 128;
constexpr std::size_t kMaxEnvValueBytes = 4096;
constexpr std::size_t kMaxBinaryTargets = 16;

// Every failure names its field; the caller adds the agent's id.
struct Refusal {
    std::string reason;
};

std::string_view view(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

bool has_nul(std::string_view s) { return s.find('\0') != std::string_view::npos; }

// Printable ASCII without space: a token that reaches argv or a URL.
bool is_token(std::string_view s) {
    for (unsigned char c : s) {
        if (c <= 0x20 || c >= 0x7f) return false;
    }
    return true;
}

// Names and descriptions are shown by hosts: C0 and C1 control characters (an escape
// sequence that would drive a terminal) become spaces. The text is valid UTF-8 (the parser
// checked), so a C1 control is the pair C2 80..9F.
std::string display_text(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) {
            out += ' ';
        } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
            out += ' ';
            ++i;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::optional<Refusal> read_string(const Value& object, const char* field, std::size_t max, std::string& out,
                                   bool required) {
    auto member = object.FindMember(field);
    if (member == object.MemberEnd()) {
        if (required) return Refusal{std::string(field) + " is missing"};
        return std::nullopt;
    }
    if (!member->value.IsString()) return Refusal{std::string(field) + " is not a string"};
    std::string_view s = view(member->value);
    if (s.size() > max) return Refusal{std::string(field) + " is longer than " + std::to_string(max) + " bytes"};
    if (has_nul(s)) return Refusal{std::string(field) + " holds a NUL character"};
    out.assign(s);
    return std::nullopt;
}

// A package or a command name for npx/uvx: one token that cannot be read as an option.
std::optional<Refusal> check_argv_token(std::string_view s, const char* field) {
    if (s.empty()) return Refusal{std::string(field) + " is empty"};
    if (!is_token(s)) return Refusal{std::string(field) + " holds a space or a character outside printable ASCII"};
    if (s.front() == '-') return Refusal{std::string(field) + " begins with '-'"};
    return std::nullopt;
}

std::optional<Refusal> check_https_url(std::string_view url, const char* field) {
    if (!is_token(url)) return Refusal{std::string(field) + " holds a space or a character outside printable ASCII"};
    if (url.substr(0, 8) != "https://" || url.size() == 8) return Refusal{std::string(field) + " is not an https URL"};
    return std::nullopt;
}

// A path inside an unpacked archive: relative, no "..", no backslash.
std::optional<Refusal> check_relative_path(std::string_view path, const char* field) {
    if (path.empty()) return Refusal{std::string(field) + " is empty"};
    if (path.front() == '/') return Refusal{std::string(field) + " is an absolute path"};
    if (path.find('\\') != std::string_view::npos) return Refusal{std::string(field) + " holds a backslash"};
    for (unsigned char c : path) {
        if (c < 0x20 || c == 0x7f) return Refusal{std::string(field) + " holds a control character"};
    }
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        if (path.substr(start, end - start) == "..")
            return Refusal{std::string(field) + " leads out of the archive (..)"};
        start = end + 1;
    }
    return std::nullopt;
}

std::optional<Refusal> read_args(const Value& object, const char* field, std::vector<std::string>& out) {
    auto member = object.FindMember(field);
    if (member == object.MemberEnd()) return std::nullopt;
    if (!member->value.IsArray()) return Refusal{std::string(field) + " is not an array"};
    if (member->value.Size() > kMaxArgs)
        return Refusal{std::string(field) + " has more than " + std::to_string(kMaxArgs) + " items"};
    for (const Value& arg : member->value.GetArray()) {
        if (!arg.IsString()) return Refusal{std::string(field) + " holds a non-string"};
        std::string_view s = view(arg);
        if (s.size() > kMaxArgBytes || has_nul(s)) return Refusal{std::string(field) + " holds a bad string"};
        out.emplace_back(s);
    }
    return std::nullopt;
}

// A version names a cache folder: no '/', no "..".
bool is_version(std::string_view s) {
    if (s == "." || s == "..") return false;
    for (char c : s) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                  c == '+' || c == '-';
        if (!ok) return false;
    }
    return true;
}

bool is_env_name(std::string_view name) {
    if (name.empty() || name.size() > kMaxEnvNameBytes) return false;
    if (name.front() >= '0' && name.front() <= '9') return false;
    for (char c : name) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        if (!ok) return false;
    }
    return true;
}

std::optional<Refusal> read_env(const Value& object, EnvList& out) {
    auto member = object.FindMember("env");
    if (member == object.MemberEnd()) return std::nullopt;
    if (!member->value.IsObject()) return Refusal{"env is not an object"};
    if (member->value.MemberCount() > kMaxEnv)
        return Refusal{"env has more than " + std::to_string(kMaxEnv) + " variables"};
    for (const auto& variable : member->value.GetObject()) {
        std::string_view name = view(variable.name);
        if (!is_env_name(name)) return Refusal{"env has a variable name outside [A-Za-z_][A-Za-z0-9_]*"};
        if (!variable.value.IsString()) return Refusal{"env." + std::string(name) + " is not a string"};
        std::string_view value = view(variable.value);
        if (value.size() > kMaxEnvValueBytes || has_nul(value))
            return Refusal{"env." + std::string(name) + " is a bad string"};
        out.emplace_back(std::string(name), std::string(value));
    }
    return std::nullopt;
}

std::optional<Refusal> read_package(const Value& distribution, const char* kind,
                                    std::optional<PackageDistribution>& out) {
    auto member = distribution.FindMember(kind);
    if (member == distribution.MemberEnd()) return std::nullopt;
    const Value& v = member->value;
    std::string prefix = std::string("distribution.") + kind + ".";
    if (!v.IsObject()) return Refusal{prefix.substr(0, prefix.size() - 1) + " is not an object"};
    PackageDistribution d;
    if (auto r = read_string(v, "package", kMaxPackageBytes, d.package, true)) return Refusal{prefix + r->reason};
    if (auto r = check_argv_token(d.package, "package")) return Refusal{prefix + r->reason};
    if (auto r = read_string(v, "cmd", kMaxPackageBytes, d.cmd, false)) return Refusal{prefix + r->reason};
    if (!d.cmd.empty()) {
        if (auto r = check_argv_token(d.cmd, "cmd")) return Refusal{prefix + r->reason};
    }
    if (auto r = read_args(v, "args", d.args)) return Refusal{prefix + r->reason};
    if (auto r = read_env(v, d.env)) return Refusal{prefix + r->reason};
    out = std::move(d);
    return std::nullopt;
}

bool is_target_name(std::string_view s) {
    if (s.empty() || s.size() > 32) return false;
    for (char c : s) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok) return false;
    }
    return true;
}

bool is_lower_hex(std::string& s) {
    for (char& c : s) {
        if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

std::optional<Refusal> read_binaries(const Value& distribution, std::vector<BinaryDistribution>& out) {
    auto member = distribution.FindMember("binary");
    if (member == distribution.MemberEnd()) return std::nullopt;
    if (!member->value.IsObject()) return Refusal{"distribution.binary is not an object"};
    if (member->value.MemberCount() > kMaxBinaryTargets) return Refusal{"distribution.binary has too many targets"};
    for (const auto& target : member->value.GetObject()) {
        std::string_view name = view(target.name);
        if (!is_target_name(name)) return Refusal{"distribution.binary has a target name outside [a-z0-9_-]"};
        std::string prefix = "distribution.binary." + std::string(name) + ".";
        if (!target.value.IsObject()) return Refusal{prefix + "is not an object"};
        BinaryDistribution b;
        b.target.assign(name);
        if (auto r = read_string(target.value, "archive", kMaxUrlBytes, b.archive, true))
            return Refusal{prefix + r->reason};
        if (auto r = check_https_url(b.archive, "archive")) return Refusal{prefix + r->reason};
        if (auto r = read_string(target.value, "sha256", 64, b.sha256, false)) return Refusal{prefix + r->reason};
        if (!b.sha256.empty() && (b.sha256.size() != 64 || !is_lower_hex(b.sha256))) {
            return Refusal{prefix + "sha256 is not 64 hex digits"};
        }
        if (auto r = read_string(target.value, "cmd", kMaxPackageBytes, b.cmd, true))
            return Refusal{prefix + r->reason};
        if (auto r = check_relative_path(b.cmd, "cmd")) return Refusal{prefix + r->reason};
        if (auto r = read_args(target.value, "args", b.args)) return Refusal{prefix + r->reason};
        if (auto r = read_env(target.value, b.env)) return Refusal{prefix + r->reason};
        out.push_back(std::move(b));
    }
    return std::nullopt;
}

std::optional<Refusal> read_registry_entry(const Value& v, CatalogueEntry& e) {
    if (!v.IsObject()) return Refusal{"is not an object"};
    if (auto r = read_string(v, "id", kMaxIdBytes, e.id, true)) return r;
    if (!is_safe_agent_id(e.id)) return Refusal{"id is not [a-z0-9][a-z0-9._-]*"};
    if (auto r = read_string(v, "version", kMaxVersionBytes, e.version, false)) return r;
    if (!is_version(e.version)) return Refusal{"version is not [A-Za-z0-9._+-]*"};
    if (auto r = read_string(v, "name", kMaxNameBytes, e.name, false)) return r;
    e.name = e.name.empty() ? e.id : display_text(e.name);
    if (auto r = read_string(v, "description", kMaxDescriptionBytes, e.description, false)) return r;
    e.description = display_text(e.description);
    if (auto r = read_string(v, "icon", kMaxUrlBytes, e.icon, false)) return r;
    if (!e.icon.empty()) {
        if (auto r = check_https_url(e.icon, "icon")) return r;
    }
    auto distribution = v.FindMember("distribution");
    if (distribution == v.MemberEnd() || !distribution->value.IsObject())
        return Refusal{"distribution is missing or not an object"};
    if (auto r = read_package(distribution->value, "npx", e.npx)) return r;
    if (auto r = read_package(distribution->value, "uvx", e.uvx)) return r;
    if (auto r = read_binaries(distribution->value, e.binaries)) return r;
    if (!e.npx && !e.uvx && e.binaries.empty()) return Refusal{"distribution has none of npx, uvx, binary"};
    return std::nullopt;
}

std::optional<Refusal> read_user_agent(const Value& v, CatalogueEntry& e) {
    if (!v.IsObject()) return Refusal{"is not an object"};
    UserAgent agent;
    std::string command;
    if (auto r = read_string(v, "command", kMaxArgBytes, command, true)) return r;
    if (command.empty()) return Refusal{"command is empty"};
    agent.argv.push_back(std::move(command));
    if (auto r = read_args(v, "args", agent.argv)) return r;
    if (auto r = read_env(v, agent.env)) return r;
    if (auto r = read_string(v, "cwd", kMaxArgBytes, agent.cwd, false)) return r;
    if (auto r = read_string(v, "name", kMaxNameBytes, e.name, false)) return r;
    e.name = e.name.empty() ? e.id : display_text(e.name);
    if (auto r = read_string(v, "description", kMaxDescriptionBytes, e.description, false)) return r;
    e.description = display_text(e.description);
    e.user = std::move(agent);
    return std::nullopt;
}

Result<rapidjson::Document> parse_bounded(std::string_view text, const char* what) {
    if (text.size() > kMaxCatalogueTextBytes) {
        return Status(Errc::invalid_argument,
                      std::string(what) + " is larger than " + std::to_string(kMaxCatalogueTextBytes) + " bytes");
    }
    rapidjson::Document doc;
    // Iterative: a deeply nested document cannot exhaust the stack.
    doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
    if (doc.HasParseError()) {
        return Status(Errc::invalid_argument, std::string(what) +
                                                  " is not JSON: " + rapidjson::GetParseError_En(doc.GetParseError()) +
                                                  " at offset " + std::to_string(doc.GetErrorOffset()));
    }
    if (!doc.IsObject()) return Status(Errc::invalid_argument, std::string(what) + " is not a JSON object");
    return doc;
}

void add_problem(std::vector<std::string>& problems, std::string problem) {
    if (problems.size() < kMaxCatalogueProblems) problems.push_back(std::move(problem));
}

}  // namespace

bool is_safe_agent_id(std::string_view id) {
    if (id.empty() || id.size() > kMaxIdBytes) return false;
    for (std::size_t i = 0; i < id.size(); ++i) {
        char c = id[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (i > 0 && (c == '-' || c == '_' || c == '.'));
        if (!ok) return false;
    }
    return true;
}

Result<ParsedRegistry> parse_registry_json(std::string_view text) {
    auto doc = parse_bounded(text, "the registry");
    if (!doc) return doc.status();
    auto agents = doc->FindMember("agents");
    if (agents == doc->MemberEnd() || !agents->value.IsArray()) {
        return Status(Errc::invalid_argument, "the registry has no \"agents\" array");
    }
    ParsedRegistry out;
    std::size_t index = 0;
    for (const Value& v : agents->value.GetArray()) {
        if (out.entries.size() == kMaxCatalogueEntries) {
            add_problem(out.problems, "the registry has more than " + std::to_string(kMaxCatalogueEntries) +
                                          " agents; the rest are left out");
            break;
        }
        CatalogueEntry e;
        if (auto refusal = read_registry_entry(v, e)) {
            std::string who = is_safe_agent_id(e.id) ? "agent '" + e.id + "'" : "agent #" + std::to_string(index);
            add_problem(out.problems, who + ": " + refusal->reason);
        } else {
            out.entries.push_back(std::move(e));
        }
        ++index;
    }
    return out;
}

Result<ParsedUserAgents> parse_user_agents_json(std::string_view text) {
    auto doc = parse_bounded(text, "the agents file");
    if (!doc) return doc.status();
    ParsedUserAgents out;
    if (auto r = read_string(*doc, "default", kMaxIdBytes, out.default_agent, false)) {
        return Status(Errc::invalid_argument, "the agents file: default " + r->reason);
    }
    if (!out.default_agent.empty() && !is_safe_agent_id(out.default_agent)) {
        return Status(Errc::invalid_argument, "the agents file: default is not [a-z0-9][a-z0-9._-]*");
    }
    auto agents = doc->FindMember("agents");
    if (agents == doc->MemberEnd()) return out;
    if (!agents->value.IsObject())
        return Status(Errc::invalid_argument, "the agents file: \"agents\" is not an object");
    for (const auto& member : agents->value.GetObject()) {
        CatalogueEntry e;
        e.id.assign(view(member.name));
        if (!is_safe_agent_id(e.id)) {
            add_problem(out.problems, "a user agent's name is not [a-z0-9][a-z0-9._-]*");
            continue;
        }
        if (out.entries.size() == kMaxCatalogueEntries) break;
        if (auto refusal = read_user_agent(member.value, e)) {
            add_problem(out.problems, "user agent '" + e.id + "': " + refusal->reason);
        } else {
            out.entries.push_back(std::move(e));
        }
    }
    return out;
}

}  // namespace acp::detail
