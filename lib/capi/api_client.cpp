// SPDX-License-Identifier: Apache-2.0
// Creating and freeing an acp_client, its options, hosting it (include/acp/acp.h's
// polled mode on acp::Runtime), and the library's version and error names.
#include <cstddef>
#include <cstring>

#include "acp/version.hpp"
#include "capi/barrier.hpp"

namespace acp::capi {

namespace {

// The bytes of acp_client_options a struct of an older version has.
std::size_t options_size(unsigned int version) {
    if (version == 1) return offsetof(acp_client_options, protocol_version);
    if (version == 2) return offsetof(acp_client_options, unstable);
    if (version == 3) return offsetof(acp_client_options, session_updates);
    return sizeof(acp_client_options);
}

// The host's options, or the defaults. A struct of an older version is shorter: only the
// members it has are read, the rest keep their defaults, except that update events stay
// on as they were for the hosts written against those versions.
int read_options(const acp_client_options* options, acp_client_options& out) {
    out = ACP_CLIENT_OPTIONS_INIT;
    if (options == nullptr) return ACP_OK;
    if (options->version >= 1 && options->version < ACP_CLIENT_OPTIONS_VERSION) {
        std::memcpy(&out, options, options_size(options->version));
        out.version = ACP_CLIENT_OPTIONS_VERSION;
        out.session_updates = ACP_UPDATES_ON;
        return ACP_OK;
    }
    if (options->version != ACP_CLIENT_OPTIONS_VERSION) return fail(ACP_EINVAL, "unknown acp_client_options version");
    out = *options;
    return ACP_OK;
}

int create(acp_client** out, const AgentSource& agent, const acp_client_options* options) {
    if (out == nullptr) return fail(ACP_EINVAL, "out is NULL");
    *out = nullptr;
    acp_client_options opts;
    if (int read = read_options(options, opts); read != ACP_OK) return read;
    if (opts.mode < ACP_MODE_POLLED || opts.mode > ACP_MODE_LOOP) return fail(ACP_EINVAL, "unknown mode");
    if (opts.protocol_version < ACP_PROTOCOL_AUTO || opts.protocol_version > ACP_PROTOCOL_V2) {
        return fail(ACP_EINVAL, "unknown protocol_version (ACP_PROTOCOL_AUTO, _V1 or _V2)");
    }
    if (opts.session_updates < ACP_UPDATES_AUTO || opts.session_updates > ACP_UPDATES_OFF) {
        return fail(ACP_EINVAL, "unknown session_updates (ACP_UPDATES_AUTO, _ON or _OFF)");
    }
    auto core = std::make_shared<Core>(opts);
    int started = core->start(agent, opts);
    if (started != ACP_OK) return started;
    *out = new acp_client{core};
    return ACP_OK;
}
// A hosting call in the wrong mode is the host's mistake in state, not in an argument.
int hosting_failure(const Status& status) {
    return fail(status.code() == Errc::invalid_argument ? ACP_ESTATE : code_of(status), status.message());
}

}  // namespace

}  // namespace acp::capi

using namespace acp;
using namespace acp::capi;

extern "C" {

const char* acp_version(void) { return ACP_VERSION_STRING; }
int acp_version_major(void) { return ACP_VERSION_MAJOR; }

const char* acp_error_last(void) { return error_text(); }

const char* acp_error_name(int code) {
    static const char* const names[] = {"ACP_OK",        "ACP_EINVAL",       "ACP_ESPAWN",     "ACP_EIO",
                                        "ACP_ECLOSED",   "ACP_ETIMEDOUT",    "ACP_ECANCELLED", "ACP_ERPC",
                                        "ACP_EPROTOCOL", "ACP_EUNSUPPORTED", "ACP_EINTERNAL",  "ACP_EAGAIN",
                                        "ACP_ENOTFOUND", "ACP_ESTATE"};
    if (code > 0 || -code >= static_cast<int>(sizeof names / sizeof names[0])) return "ACP_E?";
    return names[-code];
}

// --- options ------------------------------------------------------------------------------

int acp_client_options_init(acp_client_options* options, unsigned int version) {
    if (options == nullptr) return fail(ACP_EINVAL, "options is NULL");
    const acp_client_options defaults = ACP_CLIENT_OPTIONS_INIT;
    if (version >= 1 && version < ACP_CLIENT_OPTIONS_VERSION) {
        std::memcpy(options, &defaults, options_size(version));
    } else if (version == ACP_CLIENT_OPTIONS_VERSION) {
        *options = defaults;
    } else {
        return fail(ACP_EINVAL, "unknown acp_client_options version");
    }
    options->version = version;
    return ACP_OK;
}

int acp_spawn_options_init(acp_spawn_options* options, unsigned int version) {
    if (options == nullptr) return fail(ACP_EINVAL, "options is NULL");
    if (version != ACP_SPAWN_OPTIONS_VERSION) return fail(ACP_EINVAL, "unknown acp_spawn_options version");
    const acp_spawn_options defaults = ACP_SPAWN_OPTIONS_INIT;
    *options = defaults;
    return ACP_OK;
}

// --- creating -----------------------------------------------------------------------------

int acp_client_spawn(acp_client** out, const acp_spawn_options* agent, const acp_client_options* options) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out != nullptr) *out = nullptr;
        if (agent == nullptr || agent->argv == nullptr || agent->argv[0] == nullptr) {
            return fail(ACP_EINVAL, "the agent's argv is empty");
        }
        if (agent->version != ACP_SPAWN_OPTIONS_VERSION) return fail(ACP_EINVAL, "unknown acp_spawn_options version");
        SpawnOptions spawn;
        for (const char* const* arg = agent->argv; *arg != nullptr; ++arg) spawn.argv.emplace_back(*arg);
        if (agent->cwd != nullptr) spawn.cwd = agent->cwd;
        if (agent->env_set != nullptr) {
            for (const char* const* entry = agent->env_set; *entry != nullptr; ++entry) {
                const char* eq = std::strchr(*entry, '=');
                if (eq == nullptr) return fail(ACP_EINVAL, std::string("env_set entry without '=': ") + *entry);
                spawn.env_set.emplace_back(std::string(*entry, eq), std::string(eq + 1));
            }
        }
        if (agent->env_unset != nullptr) {
            for (const char* const* name = agent->env_unset; *name != nullptr; ++name)
                spawn.env_unset.emplace_back(*name);
        }
        if (agent->shutdown_grace_ms != 0) spawn.shutdown_grace = std::chrono::milliseconds(agent->shutdown_grace_ms);
        if (agent->terminate_grace_ms != 0) {
            spawn.terminate_grace = std::chrono::milliseconds(agent->terminate_grace_ms);
        }
        return create(out, AgentSource{&spawn, nullptr, nullptr}, options);
    });
}

int acp_remote_options_init(acp_remote_options* options, unsigned int version) {
    if (options == nullptr) return fail(ACP_EINVAL, "options is NULL");
    if (version != ACP_REMOTE_OPTIONS_VERSION) return fail(ACP_EINVAL, "unknown acp_remote_options version");
    const acp_remote_options defaults = ACP_REMOTE_OPTIONS_INIT;
    *options = defaults;
    return ACP_OK;
}

int acp_client_connect(acp_client** out, const acp_remote_options* agent, const acp_client_options* options) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out != nullptr) *out = nullptr;
        if (agent == nullptr || agent->url == nullptr) return fail(ACP_EINVAL, "the agent's url is NULL");
        if (agent->version != ACP_REMOTE_OPTIONS_VERSION) return fail(ACP_EINVAL, "unknown acp_remote_options version");
        RemoteOptions remote;
        remote.url = agent->url;
        if (agent->headers != nullptr) {
            for (const char* const* entry = agent->headers; *entry != nullptr; ++entry) {
                const char* colon = std::strchr(*entry, ':');
                // The name only in the message: the value may be a secret.
                if (colon == nullptr) return fail(ACP_EINVAL, "a header entry has no ':' (\"Name: value\")");
                const char* value = colon + 1;
                while (*value == ' ' || *value == '\t') ++value;
                remote.headers.emplace_back(std::string(*entry, colon), std::string(value));
            }
        }
        if (agent->ca_file != nullptr) remote.ca_file = agent->ca_file;
        if (agent->connect_timeout_ms != 0)
            remote.connect_timeout = std::chrono::milliseconds(agent->connect_timeout_ms);
        return create(out, AgentSource{nullptr, nullptr, &remote}, options);
    });
}

int acp_client_adopt(acp_client** out, int read_fd, int write_fd, int stderr_fd, const acp_client_options* options) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        AdoptedFds fds;
        fds.read_fd = read_fd;
        fds.write_fd = write_fd;
        fds.stderr_fd = stderr_fd;
        return create(out, AgentSource{nullptr, &fds, nullptr}, options);
    });
}

void acp_client_free(acp_client* client) {
    guarded_void([&] {
        if (client == nullptr) return;
        if (client->core->in_callback()) {
            // Freeing would pull the loop (or libacp's thread) from under the callback.
            fail(ACP_ESTATE, "acp_client_free inside the client's own callback: close it there, free it later");
            return;
        }
        client->core->shutdown();
        delete client;
    });
}

// --- hosting (acp::Runtime) ------------------------------------------------------------------

int acp_client_fd(const acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        if (core->freed) return fail(ACP_ECLOSED, "the client was freed");
        Result<int> fd = core->runtime().fd();
        return fd ? *fd : hosting_failure(fd.status());
    });
}

int acp_client_timeout_ms(const acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        if (core->freed) return -1;
        Result<int> timeout = core->runtime().timeout_ms();
        return timeout ? *timeout : hosting_failure(timeout.status());
    });
}

int acp_client_run_nowait(acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        if (core->freed) return 0;
        Result<bool> alive = core->runtime().run_nowait();
        if (!alive) return hosting_failure(alive.status());
        return *alive ? 1 : 0;
    });
}

int acp_client_run_once(acp_client* client, int timeout_ms) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        if (core->freed) return 0;
        Result<bool> alive = core->runtime().run_once(timeout_ms);
        if (!alive) return hosting_failure(alive.status());
        return *alive ? 1 : 0;
    });
}

int acp_client_event_fd(const acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        int fd = core->events().fd();
        if (fd < 0) return fail(ACP_EUNSUPPORTED, "no event descriptor on Windows: pull events after each run");
        return fd;
    });
}

}  // extern "C"
