// SPDX-License-Identifier: Apache-2.0
// acp/catalogue.hpp — agents by name: the ACP registry (registry.json) and the user's own
// named agents, resolved to the SpawnOptions that start them (docs/agents.md). The
// catalogue only describes and resolves; it never starts a process.
//
//   acp::Catalogue agents = acp::Catalogue::bundled();        // or from_registry_file(...)
//   (void)agents.add_user_agents_file(acp::user_agents_path());  // a missing file is fine
//   acp::ResolveOptions how;
//   how.login_shell = true;  // a GUI-launched editor: take PATH from the login shell
//   acp::Result<acp::Resolution> agent = agents.resolve("claude-acp", how);
//   if (!agent) { show(agent.status().message()); return; }  // e.g. "npx is not on the PATH"
//   client.connect(agent->spawn);
//
// Registry text is untrusted display data: sizes and types are checked, ids, packages and
// environment names are restricted to safe characters (a package never begins with '-',
// so it cannot become an option of npx), archive URLs must be https, control characters
// in names and descriptions are replaced by spaces. An entry that breaks a rule is left
// out and named in problems(); the rest of the registry stays usable.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "acp/export.hpp"
#include "acp/status.hpp"
#include "acp/transport_options.hpp"

namespace acp {

namespace detail {
class LoginShellCache;
}

using EnvList = std::vector<std::pair<std::string, std::string>>;

// A package run by npx or uvx: `npx -y PACKAGE ARGS`, or `npx -y --package PACKAGE CMD
// ARGS` when cmd is set (uvx: `uvx PACKAGE ARGS` / `uvx --from PACKAGE CMD ARGS`).
struct PackageDistribution {
    std::string package;  // with its version, as the registry gives it: "@scope/name@1.2.3"
    std::string cmd;
    std::vector<std::string> args;
    EnvList env;
};

// A build for one platform target ("linux-x86_64"): an archive to download and unpack,
// and the command inside it.
struct BinaryDistribution {
    std::string target;
    std::string archive;  // https URL
    std::string sha256;   // lower-case hex, or empty when the registry gives none
    std::string cmd;      // relative to the unpacked archive, e.g. "./bin/agent"
    std::vector<std::string> args;
    EnvList env;
};

// A user-named agent (agents.json): a command line of the user's own.
struct UserAgent {
    std::vector<std::string> argv;
    EnvList env;
    std::string cwd;
};

struct CatalogueEntry {
    std::string id;
    std::string name;  // display name; the id when the registry gives none
    std::string version;
    std::string description;
    std::string icon;  // URL as given (https), for display only
    std::optional<PackageDistribution> npx;
    std::optional<PackageDistribution> uvx;
    std::vector<BinaryDistribution> binaries;
    std::optional<UserAgent> user;  // set: a user-named agent (it wins over the registry's)
};

// How resolve() finds the tools an agent needs.
struct ResolveOptions {
    // The platform target to pick a binary for; empty: this machine's (platform_target()).
    std::string platform;
    // The PATH the agent's command is looked up on. Set: the host gives its own
    // environment and the login shell is never run. Unset: the host's PATH, or the login
    // shell's when login_shell is true.
    std::optional<std::string> path;
    // Take PATH, and the variables named in login_shell_variables, from the user's login
    // shell ($SHELL -l -i -c env), once per catalogue, within login_shell_timeout: a GUI-started
    // editor lacks the PATH the user's terminal has, where npx and uvx live. They are put
    // into the spawn options' env_set. When the shell fails or times out, resolve() goes
    // on with the host's environment and says so in Resolution::notes.
    bool login_shell = false;
    std::vector<std::string> login_shell_variables;
    std::chrono::milliseconds login_shell_timeout{std::chrono::seconds(5)};
    // Where binary agents are unpacked; empty: agents_cache_dir().
    std::string cache_dir;
};

enum class DistributionKind { user, npx, uvx, binary };

// Name of a DistributionKind, e.g. "npx".
ACP_EXPORT const char* distribution_kind_name(DistributionKind kind);

struct Resolution {
    std::string id;
    DistributionKind kind = DistributionKind::user;
    SpawnOptions spawn;
    // kind == binary: the build and where it is (or is to be) unpacked. needs_install:
    // spawn.argv[0] does not exist yet; the archive must be downloaded and unpacked into
    // install_dir first.
    std::optional<BinaryDistribution> binary;
    std::string install_dir;
    bool needs_install = false;
    // What resolve() noticed but did not fail on (the login shell timed out, ...).
    std::vector<std::string> notes;
};

class ACP_EXPORT Catalogue {
public:
    Catalogue();

    // The registry format of registry/v1/latest/registry.json: {"version", "agents": [...]}.
    // Fails only when the text as a whole is unusable (not JSON, too large, no agents array).
    static Result<Catalogue> from_registry_json(std::string_view text);
    static Result<Catalogue> from_registry_file(const std::string& path);
    // A small snapshot built into libacp (lib/catalogue/bundled_registry.json, dated inside).
    static Catalogue bundled();

    // Adds registry entries; an id already present keeps its first entry.
    Status add_registry_json(std::string_view text);

    // The user's named agents, which win over registry ids of the same name:
    //   {"default": "claude",
    //    "agents": {"claude": {"command": "npx", "args": ["-y", "@agentclientprotocol/claude-agent-acp"],
    //                          "env": {"NO_COLOR": "1"}, "cwd": "/home/me"}}}
    Status add_user_agents_json(std::string_view text);
    // The same from a file; a file that does not exist adds nothing and succeeds.
    Status add_user_agents_file(const std::string& path);

    // Registry entries in registry order after the user's in file order; a user agent
    // that shadows a registry id is listed once, as the user's.
    std::vector<const CatalogueEntry*> entries() const;
    const CatalogueEntry* find(std::string_view id) const;
    // The user file's "default", or "" when none is set.
    const std::string& default_agent() const { return default_agent_; }
    // Entries left out and why ("agent 'x': package begins with '-'"), at most 100.
    const std::vector<std::string>& problems() const { return problems_; }

    // The spawn options that start the agent. A user agent is taken as it is. For a
    // registry agent: an installed binary build, else npx when it is on the PATH, else uvx
    // when it is, else a binary build for the platform still to be installed. When none
    // fits, the error (Errc::unsupported) says each thing that is missing, e.g.
    // "agent 'gemini' cannot run here: npx is not on the PATH (/usr/bin:/bin); no build for
    // linux-x86_64". An unknown id fails with Errc::invalid_argument.
    Result<Resolution> resolve(std::string_view id, const ResolveOptions& options = {}) const;

private:
    std::vector<CatalogueEntry> registry_;
    std::vector<CatalogueEntry> user_;
    std::string default_agent_;
    std::vector<std::string> problems_;
    // The login shell's answer, asked once and shared by copies of this catalogue.
    std::shared_ptr<detail::LoginShellCache> login_shell_;
};

// Bounds and rules for install_binary.
struct InstallOptions {
    std::uint64_t max_download_bytes = 512ull * 1024 * 1024;
    std::uint64_t max_unpacked_bytes = 2ull * 1024 * 1024 * 1024;
    std::size_t max_entries = 100000;
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(30)};
    // Also take file:// URLs and http:// to 127.0.0.1 (tests, a local mirror). Off: the
    // archive must come over https.
    bool allow_local_urls = false;
    // Trust the CAs in this PEM file instead of the system's (a local mirror, a company CA).
    std::string ca_file;
};

// Installs a binary resolution (needs_install): downloads the archive with libcurl (loaded
// on first use), checks its sha256 when the registry gave one, and unpacks it with
// libarchive (loaded on first use) into a fresh folder beside install_dir that is renamed
// into place only when everything succeeded, so a refused archive leaves nothing behind
// and a half-written install is never run. Refused: absolute paths, "..", links out of
// the folder, hard links, devices, FIFOs, sockets, more than max_unpacked_bytes (sparse
// members count at their full size). Blocks the calling thread for the download: call it
// off the UI thread. Needs a build with ACP_WITH_REMOTE (Errc::unsupported otherwise).
ACP_EXPORT Status install_binary(const Resolution& resolution, const InstallOptions& options = {});

// Where fetch_registry gets the registry from, and what it falls back to.
struct RegistryFetchOptions {
    std::string url = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json";  // https only
    // The cached copy; empty: registry_cache_path(). Its modification time is its age.
    std::string cache_file;
    // A cached copy younger than this is used without asking the network.
    std::chrono::seconds max_age{std::chrono::hours(24)};
    std::string ca_file;  // trust the CAs in this PEM file instead of the system's
    std::chrono::milliseconds timeout{std::chrono::seconds(30)};  // the whole fetch
};

enum class RegistrySource { network, cache, bundled };

struct FetchedRegistry {
    Catalogue catalogue;
    RegistrySource source = RegistrySource::bundled;
    std::chrono::seconds age{0};     // source cache: how old the cached copy is
    std::vector<std::string> notes;  // why it is not the network's (a failed fetch, ...)
};

// The ACP registry from options.url (libcurl, loaded on first use; needs ACP_WITH_REMOTE),
// kept in the cache file; the cached copy while it is younger than max_age. Never fails:
// when the fetch fails (no network, not https, not a registry, larger than 4 MiB) it falls
// back to the cached copy of any age, then to Catalogue::bundled(), and says so in notes.
// Blocks the calling thread for the fetch: call it off the UI thread.
ACP_EXPORT FetchedRegistry fetch_registry(const RegistryFetchOptions& options = {});

// This machine's platform target as the registry names it ("linux-x86_64", "darwin-aarch64").
ACP_EXPORT std::string platform_target();
// $XDG_CONFIG_HOME/acp/agents.json, else $HOME/.config/acp/agents.json ("" without either);
// Windows: `%APPDATA%\acp\agents.json`.
ACP_EXPORT std::string user_agents_path();
// $XDG_CACHE_HOME/acp/agents, else $HOME/.cache/acp/agents ("" without either);
// Windows: `%LOCALAPPDATA%\acp\agents`.
ACP_EXPORT std::string agents_cache_dir();
// $XDG_CACHE_HOME/acp/registry.json, else $HOME/.cache/acp/registry.json ("" without either);
// Windows: `%LOCALAPPDATA%\acp\registry.json`.
ACP_EXPORT std::string registry_cache_path();

// PATH and the variables `names` as the user's login shell sets them: $SHELL (else /bin/sh)
// run as `SHELL -l -i -c '...; env -0'` in a session of its own (no terminal), stdin and
// stderr on /dev/null, killed with everything it started after timeout (Errc::timed_out).
// Runs the shell every call; resolve() keeps the first answer for the catalogue. Windows:
// Errc::unsupported, as every program there gets the user's whole environment already.
ACP_EXPORT Result<EnvList> login_shell_environment(const std::vector<std::string>& names,
                                                   std::chrono::milliseconds timeout);

}  // namespace acp
