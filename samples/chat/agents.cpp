// SPDX-License-Identifier: Apache-2.0
// acp-chat: which agent to start, by name through libacp's catalogue (agents.hpp).
#include "agents.hpp"

#include <unistd.h>

#include <cstdio>

#include "sanitize.hpp"
#include "words.hpp"

namespace chat {

bool load_catalogue(const Options& options, acp::Catalogue& catalogue) {
    if (options.registry.empty()) {
        catalogue = acp::Catalogue::bundled();
    } else if (options.registry.find("://") != std::string::npos) {
        // A URL: libacp refuses anything but https and falls back to its cache, then to
        // the snapshot, saying why.
        acp::RegistryFetchOptions fetch;
        fetch.url = options.registry;
        fetch.ca_file = options.ca_file;
        fetch.max_age = std::chrono::seconds(options.registry_max_age);
        acp::FetchedRegistry fetched = acp::fetch_registry(fetch);
        for (const std::string& note : fetched.notes) std::fprintf(stderr, "acp-chat: %s\n", sanitize(note).c_str());
        catalogue = std::move(fetched.catalogue);
    } else {
        auto read = acp::Catalogue::from_registry_file(options.registry);
        if (!read) {
            std::fprintf(stderr, "acp-chat: --registry %s: %s\n", sanitize(options.registry).c_str(),
                         sanitize(read.status().message()).c_str());
            return false;
        }
        catalogue = std::move(read.value());
    }
    const std::string path = acp::user_agents_path();
    if (path.empty()) return true;
    if (acp::Status added = catalogue.add_user_agents_file(path); !added.ok()) {
        std::fprintf(stderr, "acp-chat: %s: %s\n", sanitize(path).c_str(), sanitize(added.message()).c_str());
        return false;
    }
    return true;
}

namespace {

// The demo agent: next to this binary (installed or copied together), else the build's.
std::string demo_agent() {
    const std::string beside = self_dir() + "/acp-demo-agent";
    return access(beside.c_str(), X_OK) == 0 ? beside : std::string(ACP_DEMO_AGENT_PATH);
}

int resolve_name(Options& options, const acp::Catalogue& catalogue, const std::string& name) {
    auto resolved = catalogue.resolve(name);
    if (!resolved) {
        std::fprintf(stderr, "acp-chat: %s\n", sanitize(resolved.status().message()).c_str());
        return resolved.status().code() == acp::Errc::invalid_argument ? exit_usage : exit_agent_start;
    }
    for (const std::string& note : resolved->notes) std::fprintf(stderr, "acp-chat: %s\n", sanitize(note).c_str());
    if (resolved->needs_install) {
        // Once per version: later starts find the unpacked build in the cache.
        std::fprintf(stderr, "acp-chat: installing %s into %s ...\n", sanitize(name).c_str(),
                     sanitize(resolved->install_dir).c_str());
        // A registry served with a private CA (--ca-file) serves its archives with it too.
        acp::InstallOptions install;
        install.ca_file = options.ca_file;
        if (acp::Status installed = acp::install_binary(*resolved, install); !installed.ok()) {
            std::fprintf(stderr, "acp-chat: could not install %s: %s\n", sanitize(name).c_str(),
                         sanitize(installed.message()).c_str());
            return exit_agent_start;
        }
    }
    options.agent_name = name;
    options.spawn = std::move(resolved->spawn);
    return exit_ok;
}

}  // namespace

int pick_agent(Options& options, const acp::Catalogue& catalogue) {
    if (!options.connect.empty()) return exit_ok;
    if (!options.agent_name.empty()) return resolve_name(options, catalogue, options.agent_name);
    // One word that names a known agent is that agent; anything else (a path, a command
    // with arguments, words after "--") is a command line.
    if (options.agent.size() == 1 && !options.agent_is_command && catalogue.find(options.agent[0]) != nullptr) {
        return resolve_name(options, catalogue, options.agent[0]);
    }
    if (options.agent.empty() && !catalogue.default_agent().empty()) {
        return resolve_name(options, catalogue, catalogue.default_agent());
    }
    options.spawn.argv = options.agent.empty() ? std::vector<std::string>{demo_agent()} : options.agent;
    return exit_ok;
}

std::vector<std::string> agent_lines(const acp::Catalogue& catalogue, const std::string& current) {
    std::vector<std::string> lines;
    for (const acp::CatalogueEntry* e : catalogue.entries()) {
        // Registry text is the registry's: shown only sanitised, and bounded.
        std::string text = (e->id == current ? "* " : "  ") + sanitize(e->id);
        if (e->user) {
            text += "  (agents.json)";
        } else {
            if (e->name != e->id) text += "  " + sanitize(e->name);
            if (!e->version.empty()) text += " " + sanitize(e->version);
            std::string kinds;
            if (e->npx) kinds += "npx";
            if (e->uvx) kinds += std::string(kinds.empty() ? "" : ", ") + "uvx";
            if (!e->binaries.empty()) kinds += std::string(kinds.empty() ? "" : ", ") + "binary";
            text += "  (" + kinds + ")";
            std::string description = sanitize(e->description);
            if (description.size() > 200) {
                std::size_t cut = 200;  // not inside a UTF-8 sequence
                while (cut > 0 && (static_cast<unsigned char>(description[cut]) & 0xC0) == 0x80) --cut;
                description = description.substr(0, cut) + "...";
            }
            if (!description.empty()) text += ": " + description;
        }
        if (e->id == catalogue.default_agent()) text += "  [default]";
        lines.push_back(std::move(text));
    }
    if (!catalogue.problems().empty()) {
        lines.push_back(std::to_string(catalogue.problems().size()) +
                        " registry entries left out; the first: " + sanitize(catalogue.problems().front()));
    }
    return lines;
}

}  // namespace chat
