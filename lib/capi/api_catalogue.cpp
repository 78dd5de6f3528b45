// SPDX-License-Identifier: Apache-2.0
// acp_catalogue_*: the agent catalogue (acp/catalogue.hpp) behind the C API, its answers
// as JSON.
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>

#include "acp/acp.h"
#include "acp/catalogue.hpp"
#include "capi/barrier.hpp"
#include "capi/json_text.hpp"

struct acp_catalogue {
    acp::Catalogue catalogue;
};

using namespace acp;
using namespace acp::capi;

namespace {

void write_strings(detail::JsonWriter& w, const std::vector<std::string>& items) {
    w.StartArray();
    for (const auto& item : items) detail::write_string(w, item);
    w.EndArray();
}

std::string resolution_json(const Resolution& r) {
    rapidjson::StringBuffer buffer;
    detail::JsonWriter w(buffer);
    w.StartObject();
    w.Key("id");
    detail::write_string(w, r.id);
    w.Key("kind");
    w.String(distribution_kind_name(r.kind));
    w.Key("argv");
    write_strings(w, r.spawn.argv);
    w.Key("env");
    w.StartObject();
    for (const auto& [name, value] : r.spawn.env_set) {
        detail::write_string(w, name);
        detail::write_string(w, value);
    }
    w.EndObject();
    w.Key("cwd");
    detail::write_string(w, r.spawn.cwd);
    w.Key("needs_install");
    w.Bool(r.needs_install);
    w.Key("install_dir");
    detail::write_string(w, r.install_dir);
    w.Key("notes");
    write_strings(w, r.notes);
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

const char* source_name(RegistrySource source) {
    switch (source) {
        case RegistrySource::network: return "network";
        case RegistrySource::cache: return "cache";
        case RegistrySource::bundled: break;
    }
    return "bundled";
}

std::string fetch_info_json(const FetchedRegistry& fetched) {
    rapidjson::StringBuffer buffer;
    detail::JsonWriter w(buffer);
    w.StartObject();
    w.Key("source");
    w.String(source_name(fetched.source));
    w.Key("age_seconds");
    w.Int64(static_cast<int64_t>(fetched.age.count()));
    w.Key("notes");
    write_strings(w, fetched.notes);
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

// The user's agents beside the registry (NULL: the default file, "": none).
Status add_user_agents(Catalogue& catalogue, const char* user_agents_path) {
    const std::string path = user_agents_path != nullptr ? user_agents_path : acp::user_agents_path();
    return path.empty() ? Status{} : catalogue.add_user_agents_file(path);
}

}  // namespace

int acp_registry_fetch_options_init(acp_registry_fetch_options* options, unsigned int version) {
    if (options == nullptr) return fail(ACP_EINVAL, "options is NULL");
    if (version != ACP_REGISTRY_FETCH_OPTIONS_VERSION)
        return fail(ACP_EINVAL, "unknown acp_registry_fetch_options version");
    const acp_registry_fetch_options defaults = ACP_REGISTRY_FETCH_OPTIONS_INIT;
    *options = defaults;
    return ACP_OK;
}

int acp_catalogue_fetch(acp_catalogue** out, char** info_json, const acp_registry_fetch_options* options,
                        const char* user_agents_path) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr) return fail(ACP_EINVAL, "out is NULL");
        *out = nullptr;
        if (info_json != nullptr) *info_json = nullptr;
        const acp_registry_fetch_options defaults = ACP_REGISTRY_FETCH_OPTIONS_INIT;
        const acp_registry_fetch_options& given = options != nullptr ? *options : defaults;
        if (given.version != ACP_REGISTRY_FETCH_OPTIONS_VERSION) {
            return fail(ACP_EINVAL, "unknown acp_registry_fetch_options version");
        }
        if (given.max_age_seconds < 0) return fail(ACP_EINVAL, "max_age_seconds is negative");
        RegistryFetchOptions fetch;
        if (given.url != nullptr) fetch.url = given.url;
        if (given.cache_file != nullptr) fetch.cache_file = given.cache_file;
        fetch.max_age = std::chrono::seconds(given.max_age_seconds);
        if (given.ca_file != nullptr) fetch.ca_file = given.ca_file;
        if (given.timeout_ms != 0) fetch.timeout = std::chrono::milliseconds(given.timeout_ms);
        FetchedRegistry fetched = fetch_registry(fetch);
        auto made = std::make_unique<acp_catalogue>();
        made->catalogue = std::move(fetched.catalogue);
        if (Status added = add_user_agents(made->catalogue, user_agents_path); !added) {
            return fail(code_of(added), added.message());
        }
        if (info_json != nullptr) *info_json = copy_string(fetch_info_json(fetched));
        *out = made.release();
        return ACP_OK;
    });
}

int acp_catalogue_new(acp_catalogue** out, const char* registry_json, const char* user_agents_path) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr) return fail(ACP_EINVAL, "out is NULL");
        *out = nullptr;
        auto made = std::make_unique<acp_catalogue>();
        if (registry_json == nullptr) {
            made->catalogue = Catalogue::bundled();
        } else {
            auto parsed = Catalogue::from_registry_json(registry_json);
            if (!parsed) return fail(code_of(parsed.status()), parsed.status().message());
            made->catalogue = std::move(parsed.value());
        }
        if (Status added = add_user_agents(made->catalogue, user_agents_path); !added) {
            return fail(code_of(added), added.message());
        }
        *out = made.release();
        return ACP_OK;
    });
}

void acp_catalogue_free(acp_catalogue* catalogue) { delete catalogue; }

int acp_catalogue_list_json(char** out, const acp_catalogue* catalogue) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr || catalogue == nullptr) return fail(ACP_EINVAL, "out or catalogue is NULL");
        *out = nullptr;
        const Catalogue& c = catalogue->catalogue;
        rapidjson::StringBuffer buffer;
        detail::JsonWriter w(buffer);
        w.StartObject();
        w.Key("default");
        if (c.default_agent().empty()) {
            w.Null();
        } else {
            detail::write_string(w, c.default_agent());
        }
        w.Key("problems");
        write_strings(w, c.problems());
        w.Key("agents");
        w.StartArray();
        for (const CatalogueEntry* e : c.entries()) {
            w.StartObject();
            for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"id", &e->id},
                                             {"name", &e->name},
                                             {"version", &e->version},
                                             {"description", &e->description},
                                             {"icon", &e->icon}}) {
                w.Key(key);
                detail::write_string(w, *value);
            }
            w.Key("user");
            w.Bool(e->user.has_value());
            w.Key("kinds");
            w.StartArray();
            if (e->user) w.String("user");
            if (e->npx) w.String("npx");
            if (e->uvx) w.String("uvx");
            if (!e->binaries.empty()) w.String("binary");
            w.EndArray();
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
        *out = copy_string(std::string(buffer.GetString(), buffer.GetSize()));
        return ACP_OK;
    });
}

int acp_catalogue_resolve_json(char** out, acp_catalogue* catalogue, const char* id, int flags) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr || catalogue == nullptr || id == nullptr)
            return fail(ACP_EINVAL, "out, catalogue or id is NULL");
        *out = nullptr;
        ResolveOptions how;
        how.login_shell = (flags & ACP_RESOLVE_LOGIN_SHELL) != 0;
        auto r = catalogue->catalogue.resolve(id, how);
        if (!r) return fail(code_of(r.status()), r.status().message());
        *out = copy_string(resolution_json(*r));
        return ACP_OK;
    });
}

int acp_install_options_init(acp_install_options* options, unsigned int version) {
    if (options == nullptr) return fail(ACP_EINVAL, "options is NULL");
    const acp_install_options defaults = ACP_INSTALL_OPTIONS_INIT;
    if (version == 1) {
        std::memcpy(options, &defaults, offsetof(acp_install_options, cache_dir));
    } else if (version == ACP_INSTALL_OPTIONS_VERSION) {
        *options = defaults;
    } else {
        return fail(ACP_EINVAL, "unknown acp_install_options version");
    }
    options->version = version;
    return ACP_OK;
}

int acp_catalogue_install(char** out, acp_catalogue* catalogue, const char* id, int flags,
                          const acp_install_options* options) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr || catalogue == nullptr || id == nullptr)
            return fail(ACP_EINVAL, "out, catalogue or id is NULL");
        *out = nullptr;
        // A version 1 struct is shorter: only its members are read, the rest keep the defaults.
        acp_install_options given = ACP_INSTALL_OPTIONS_INIT;
        if (options != nullptr && options->version == 1) {
            std::memcpy(&given, options, offsetof(acp_install_options, cache_dir));
        } else if (options != nullptr && options->version == ACP_INSTALL_OPTIONS_VERSION) {
            given = *options;
        } else if (options != nullptr) {
            return fail(ACP_EINVAL, "unknown acp_install_options version");
        }
        ResolveOptions how;
        how.login_shell = (flags & ACP_RESOLVE_LOGIN_SHELL) != 0;
        if (given.cache_dir != nullptr) how.cache_dir = given.cache_dir;
        if (given.platform != nullptr) how.platform = given.platform;
        if (given.path != nullptr) how.path = std::string(given.path);
        auto r = catalogue->catalogue.resolve(id, how);
        if (!r) return fail(code_of(r.status()), r.status().message());
        if (r->needs_install && (flags & ACP_RESOLVE_NO_INSTALL) == 0) {
            InstallOptions install;
            if (given.ca_file != nullptr) install.ca_file = given.ca_file;
            if (given.max_download_bytes != 0) install.max_download_bytes = given.max_download_bytes;
            if (given.max_unpacked_bytes != 0) install.max_unpacked_bytes = given.max_unpacked_bytes;
            if (given.connect_timeout_ms != 0)
                install.connect_timeout = std::chrono::milliseconds(given.connect_timeout_ms);
            if (Status installed = install_binary(*r, install); !installed) {
                return fail(code_of(installed), installed.message());
            }
            // install_binary unpacked the build where the resolution's argv already points.
            r->needs_install = false;
        }
        *out = copy_string(resolution_json(*r));
        return ACP_OK;
    });
}
