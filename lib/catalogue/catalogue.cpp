// SPDX-License-Identifier: Apache-2.0
#include "acp/catalogue.hpp"

#include <cstdlib>
#include <cstring>

#include "catalogue/catalogue_json.hpp"
#include "catalogue/login_shell.hpp"
#include "platform/program_search.hpp"
#include "platform/whole_file.hpp"

namespace acp {
namespace detail {
extern const unsigned char kBundledRegistry[];
extern const std::size_t kBundledRegistrySize;
}  // namespace detail

namespace {

// The file's text, bounded before it is read whole; a missing file is Errc::unsupported
// so that add_user_agents_file can tell it from a file it cannot read.
Result<std::string> read_text_file(const std::string& path, const char* what) {
    std::string text;
    std::string why;
    switch (detail::read_whole_file(path, detail::kMaxCatalogueTextBytes, text, why)) {
        case detail::WholeFile::ok: return text;
        case detail::WholeFile::missing:
            return Status(Errc::unsupported, std::string(what) + " " + path + " does not exist");
        case detail::WholeFile::too_large:
            return Status(Errc::invalid_argument, std::string(what) + " " + path + " is larger than " +
                                                      std::to_string(detail::kMaxCatalogueTextBytes) + " bytes");
        case detail::WholeFile::failed: break;
    }
    return Status(Errc::io_error, std::string("cannot read ") + what + " " + path + ": " + why);
}

void add_env(SpawnOptions& spawn, const EnvList& env) {
    for (const auto& [name, value] : env) spawn.env_set.emplace_back(name, value);
}

std::string join_targets(const std::vector<BinaryDistribution>& binaries) {
    std::string out;
    for (const auto& b : binaries) out += (out.empty() ? "" : ", ") + b.target;
    return out;
}

}  // namespace

const char* distribution_kind_name(DistributionKind kind) {
    switch (kind) {
        case DistributionKind::user: return "user";
        case DistributionKind::npx: return "npx";
        case DistributionKind::uvx: return "uvx";
        case DistributionKind::binary: return "binary";
    }
    return "unknown";
}

Catalogue::Catalogue() : login_shell_(std::make_shared<detail::LoginShellCache>()) {}

Result<Catalogue> Catalogue::from_registry_json(std::string_view text) {
    Catalogue catalogue;
    if (Status s = catalogue.add_registry_json(text); !s) return s;
    return catalogue;
}

Result<Catalogue> Catalogue::from_registry_file(const std::string& path) {
    auto text = read_text_file(path, "the registry file");
    if (!text) return text.status();
    return from_registry_json(*text);
}

Catalogue Catalogue::bundled() {
    std::string_view text(reinterpret_cast<const char*>(detail::kBundledRegistry), detail::kBundledRegistrySize);
    // The snapshot is checked by the tests; failing here would be a build of libacp that
    // no test passed.
    return from_registry_json(text).value();
}

Status Catalogue::add_registry_json(std::string_view text) {
    auto parsed = detail::parse_registry_json(text);
    if (!parsed) return parsed.status();
    for (auto& problem : parsed->problems) {
        if (problems_.size() < detail::kMaxCatalogueProblems) problems_.push_back(std::move(problem));
    }
    for (auto& entry : parsed->entries) {
        bool duplicate = false;
        for (const auto& known : registry_) duplicate = duplicate || known.id == entry.id;
        if (duplicate) {
            if (problems_.size() < detail::kMaxCatalogueProblems)
                problems_.push_back("agent '" + entry.id + "': listed twice; the first is kept");
            continue;
        }
        if (registry_.size() == detail::kMaxCatalogueEntries) break;
        registry_.push_back(std::move(entry));
    }
    return {};
}

Status Catalogue::add_user_agents_json(std::string_view text) {
    auto parsed = detail::parse_user_agents_json(text);
    if (!parsed) return parsed.status();
    for (auto& entry : parsed->entries) {
        // A later file overrides an earlier one's agent of the same name.
        bool replaced = false;
        for (auto& known : user_) {
            if (known.id == entry.id) {
                known = entry;
                replaced = true;
            }
        }
        if (!replaced) user_.push_back(std::move(entry));
    }
    if (!parsed->default_agent.empty()) default_agent_ = parsed->default_agent;
    for (auto& problem : parsed->problems) {
        if (problems_.size() < detail::kMaxCatalogueProblems) problems_.push_back(std::move(problem));
    }
    return {};
}

Status Catalogue::add_user_agents_file(const std::string& path) {
    auto text = read_text_file(path, "the agents file");
    if (!text) return text.status().code() == Errc::unsupported ? Status() : text.status();
    Status s = add_user_agents_json(*text);
    if (!s) return Status(s.code(), path + ": " + s.message());
    return s;
}

std::vector<const CatalogueEntry*> Catalogue::entries() const {
    std::vector<const CatalogueEntry*> out;
    for (const auto& e : user_) out.push_back(&e);
    for (const auto& e : registry_) {
        bool shadowed = false;
        for (const auto& u : user_) shadowed = shadowed || u.id == e.id;
        if (!shadowed) out.push_back(&e);
    }
    return out;
}

const CatalogueEntry* Catalogue::find(std::string_view id) const {
    for (const auto& e : user_) {
        if (e.id == id) return &e;
    }
    for (const auto& e : registry_) {
        if (e.id == id) return &e;
    }
    return nullptr;
}

Result<Resolution> Catalogue::resolve(std::string_view id, const ResolveOptions& options) const {
    const CatalogueEntry* entry = find(id);
    if (entry == nullptr) {
        if (!detail::is_safe_agent_id(id))
            return Status(Errc::invalid_argument, "not an agent name (use [a-z0-9][a-z0-9._-]*)");
        std::string known;
        for (const CatalogueEntry* e : entries()) known += (known.empty() ? "" : ", ") + e->id;
        return Status(Errc::invalid_argument,
                      "no agent '" + std::string(id) + "' in the catalogue" +
                          (known.empty() ? std::string(" (it is empty)") : " (agents: " + known + ")"));
    }

    Resolution r;
    r.id = entry->id;
    const char* host_path = std::getenv("PATH");
    std::string path = host_path != nullptr ? host_path : "";
    if (options.path) {
        path = *options.path;
    } else if (options.login_shell) {
        const Result<EnvList>& shell = login_shell_->get(options.login_shell_timeout);
        if (!shell) {
            r.notes.push_back("the login shell's environment is not used: " + shell.status().message());
        } else {
            r.spawn.env_set = detail::pick_variables(*shell, options.login_shell_variables);
            for (const auto& [name, value] : r.spawn.env_set) {
                if (name == "PATH") path = value;
            }
        }
    }

    if (entry->user) {
        r.kind = DistributionKind::user;
        r.spawn.argv = entry->user->argv;
        r.spawn.cwd = entry->user->cwd;
        add_env(r.spawn, entry->user->env);
        return r;
    }

    std::string platform = options.platform.empty() ? platform_target() : options.platform;
    const BinaryDistribution* binary = nullptr;
    for (const auto& b : entry->binaries) {
        if (b.target == platform) binary = &b;
    }
    std::string cache = options.cache_dir.empty() ? agents_cache_dir() : options.cache_dir;
    std::string executable;
    if (binary != nullptr && !cache.empty()) {
        r.install_dir =
            cache + "/" + entry->id + "/" + (entry->version.empty() ? "unversioned" : entry->version) + "/" + platform;
        std::string cmd = binary->cmd.compare(0, 2, "./") == 0 ? binary->cmd.substr(2) : binary->cmd;
        executable = r.install_dir + "/" + cmd;
    }
    auto use_binary = [&](bool needs_install) {
        r.kind = DistributionKind::binary;
        r.binary = *binary;
        r.needs_install = needs_install;
        r.spawn.argv = {executable};
        r.spawn.argv.insert(r.spawn.argv.end(), binary->args.begin(), binary->args.end());
        add_env(r.spawn, binary->env);
        return r;
    };
    if (!executable.empty() && detail::is_program_file(executable)) return use_binary(false);

    auto use_package = [&](DistributionKind kind, const std::string& tool, const PackageDistribution& d) {
        r.kind = kind;
        r.spawn.argv = {tool};
        if (kind == DistributionKind::npx) r.spawn.argv.push_back("-y");
        if (d.cmd.empty()) {
            r.spawn.argv.push_back(d.package);
        } else {
            r.spawn.argv.push_back(kind == DistributionKind::npx ? "--package" : "--from");
            r.spawn.argv.push_back(d.package);
            r.spawn.argv.push_back(d.cmd);
        }
        r.spawn.argv.insert(r.spawn.argv.end(), d.args.begin(), d.args.end());
        add_env(r.spawn, d.env);
        return r;
    };
    std::vector<std::string> missing;
    if (entry->npx) {
        std::string npx = detail::find_program("npx", path);
        if (!npx.empty()) return use_package(DistributionKind::npx, npx, *entry->npx);
        missing.push_back("npx is not on the PATH (" + path + ")");
    }
    if (entry->uvx) {
        std::string uvx = detail::find_program("uvx", path);
        if (!uvx.empty()) return use_package(DistributionKind::uvx, uvx, *entry->uvx);
        missing.push_back("uvx is not on the PATH (" + path + ")");
    }
    if (!executable.empty()) return use_binary(true);
    if (binary != nullptr) {
        missing.push_back("no cache directory to install its " + platform + " build in (set XDG_CACHE_HOME or HOME)");
    } else if (!entry->binaries.empty()) {
        missing.push_back("no build for " + platform + " (builds: " + join_targets(entry->binaries) + ")");
    }
    std::string message = "agent '" + entry->id + "' cannot run here: ";
    for (std::size_t i = 0; i < missing.size(); ++i) message += (i == 0 ? "" : "; ") + missing[i];
    for (const auto& note : r.notes) message += "; " + note;
    return Status(Errc::unsupported, message);
}

}  // namespace acp
