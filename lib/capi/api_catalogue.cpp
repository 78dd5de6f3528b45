// SPDX-License-Identifier: Apache-2.0
// acp_catalogue_*: the agent catalogue (acp/catalogue.hpp) behind the C API, its answers
// as JSON.
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

}  // namespace

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
        std::string path = user_agents_path != nullptr ? user_agents_path : acp::user_agents_path();
        if (!path.empty()) {
            Status added = made->catalogue.add_user_agents_file(path);
            if (!added) return fail(code_of(added), added.message());
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
                                             {"name", &e->name}, {"version", &e->version},
                                             {"description", &e->description}, {"icon", &e->icon}}) {
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
        if (out == nullptr || catalogue == nullptr || id == nullptr) return fail(ACP_EINVAL, "out, catalogue or id is NULL");
        *out = nullptr;
        ResolveOptions how;
        how.login_shell = (flags & ACP_RESOLVE_LOGIN_SHELL) != 0;
        auto r = catalogue->catalogue.resolve(id, how);
        if (!r) return fail(code_of(r.status()), r.status().message());
        *out = copy_string(resolution_json(*r));
        return ACP_OK;
    });
}
