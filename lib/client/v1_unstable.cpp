// SPDX-License-Identifier: Apache-2.0
#include "client/v1_unstable.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>

#include <string>
#include <utility>

#include "client/v1_adapter.hpp"
#include "protocol/unstable_additions.hpp"
#include "protocol/v1/unstable_codec.hpp"
#include "protocol/v1/unstable_methods.hpp"
#include "protocol/v2/unstable_codec.hpp"

namespace acp::detail {

namespace {

namespace un1 = acp::v1::unstable;
namespace un2 = acp::v2::unstable;
namespace method = acp::v1::unstable::method;
using Document = rapidjson::Document;

template <class Additions>
Status decode_v1_additions(const v2::ExtraFields& extra, Additions& out) {
    Document object;
    extra_fields_object(extra, object);
    return un1::codec::decode(object, out);
}

// Copies the extra member `key` (as the agent sent it) to `to`, for the v2 reader.
void copy_extra(const v2::ExtraFields& from, std::string_view key, v2::ExtraFields& to) {
    for (const auto& [name, value] : from) {
        if (name == key) to.emplace_back(name, value);
    }
}

template <class T>
RawJson encode_v1(const T& value) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    un1::codec::encode(writer, value);
    return RawJson{std::string(buffer.GetString(), buffer.GetSize())};
}

Status parse(const RawJson& raw, Document& out) {
    out.Parse(raw.text.data(), raw.text.size());
    if (out.HasParseError()) return Status(Errc::internal, "unstable params are not JSON");
    return Status();
}

// Requests of the same shape in both versions: through the v1 codec, which must take them.
template <class V1Request>
Status relower(const RawJson& params, RawJson& out, std::vector<RawJson>&) {
    Document json;
    if (Status s = parse(params, json); !s) return s;
    V1Request request;
    if (Status s = un1::codec::decode(json, request); !s) return Status(Errc::invalid_argument, s.message());
    out = encode_v1(request);
    return Status();
}

// session/fork: v1 MCP servers (stdio ones without `type`); systemPrompt, directories and
// _meta have the v2 shape.
Status lower_fork(const RawJson& params, RawJson& out, std::vector<RawJson>& acp_entries) {
    Document json;
    if (Status s = parse(params, json); !s) return s;
    un2::ForkSessionRequest request;
    if (Status s = un2::codec::decode(json, request); !s) return Status(Errc::invalid_argument, s.message());
    std::vector<v1::McpServer> servers;
    if (Status s = lower_mcp_servers(request.mcpServers, servers, acp_entries); !s) return s;
    const bool had_servers = request.mcpServers.has_value();
    request.mcpServers.reset();
    Document without_servers;
    if (Status s = parse(encode_raw(request), without_servers); !s) return s;
    un1::ForkSessionRequest lowered;
    if (Status s = un1::codec::decode(without_servers, lowered); !s) return Status(Errc::invalid_argument, s.message());
    if (had_servers) lowered.mcpServers = std::move(servers);  // acp entries: write_with_acp_servers
    out = encode_v1(lowered);
    return Status();
}

// The v1 answer, checked by its v1 type, without the members only v2 defines.
template <class V1Response, class V2Response>
Status lift(const JsonValue& result, RawJson& out) {
    V1Response answer;
    if (Status s = un1::codec::decode(result, answer); !s) return s;
    Document json;
    if (Status s = parse(encode_v1(answer), json); !s) return s;
    const V2Response v2_answer;
    for (auto member = json.MemberBegin(); member != json.MemberEnd();) {
        const std::string_view key = string_view_of(member->name);
        const bool v2_only = !un1::codec::has_member(answer, key) && un2::codec::has_member(v2_answer, key);
        member = v2_only ? json.EraseMember(member) : member + 1;
    }
    out = RawJson{to_json_text(json)};
    return Status();
}

// A fork's modes and configOptions become the v2 option list the caller lifts.
Status lift_fork(const JsonValue& result, RawJson& out) {
    if (Status s = lift<un1::ForkSessionResponse, un2::ForkSessionResponse>(result, out); !s) return s;
    Document json;
    if (Status s = parse(out, json); !s) return s;
    json.RemoveMember("modes");
    json.RemoveMember("configOptions");
    out = RawJson{to_json_text(json)};
    return Status();
}

struct V1Form {
    std::string_view method;
    Status (*lower)(const RawJson&, RawJson&, std::vector<RawJson>&);
    Status (*lift)(const JsonValue&, RawJson&);
};

// Every method of v1's unstable schema the client calls (protocol/v1/unstable_methods.hpp).
const V1Form kForms[] = {
    {method::session_fork, &lower_fork, &lift_fork},
    {method::session_archive, &relower<un1::ArchiveSessionRequest>,
     &lift<un1::ArchiveSessionResponse, un2::ArchiveSessionResponse>},
    {method::session_unarchive, &relower<un1::UnarchiveSessionRequest>,
     &lift<un1::UnarchiveSessionResponse, un2::UnarchiveSessionResponse>},
    {method::session_status, &relower<un1::SessionStatusRequest>,
     &lift<un1::SessionStatusResponse, un2::SessionStatusResponse>},
    {method::session_set_title, &relower<un1::SetSessionTitleRequest>,
     &lift<un1::SetSessionTitleResponse, un2::SetSessionTitleResponse>},
    {method::auth_status, &relower<un1::AuthStatusRequest>, &lift<un1::AuthStatusResponse, un2::AuthStatusResponse>},
    {method::providers_list, &relower<un1::ListProvidersRequest>,
     &lift<un1::ListProvidersResponse, un2::ListProvidersResponse>},
    {method::providers_set, &relower<un1::SetProviderRequest>,
     &lift<un1::SetProviderResponse, un2::SetProviderResponse>},
    {method::providers_disable, &relower<un1::DisableProviderRequest>,
     &lift<un1::DisableProviderResponse, un2::DisableProviderResponse>},
};

const V1Form* form_of(std::string_view name) {
    for (const auto& form : kForms) {
        if (form.method == name) return &form;
    }
    return nullptr;
}

}  // namespace

void lift_unstable_capabilities(const v1::InitializeResponse& in, v2::InitializeResponse& out) {
    if (!in.agentCapabilities.has_value() || !out.capabilities.has_value()) return;
    const v1::AgentCapabilities& agent = *in.agentCapabilities;
    v2::AgentCapabilities& lifted = *out.capabilities;
    un1::AgentCapabilitiesAdditions top;
    if (decode_v1_additions(agent.extra_fields, top) && top.providers.has_value()) {
        copy_extra(agent.extra_fields, "providers", lifted.extra_fields);
    }
    un1::AgentAuthCapabilitiesAdditions auth;
    if (agent.auth.has_value() && decode_v1_additions(agent.auth->extra_fields, auth) && auth.status.has_value()) {
        if (!lifted.auth.has_value()) lifted.auth = v2::AgentAuthCapabilities{};
        copy_extra(agent.auth->extra_fields, "status", lifted.auth->extra_fields);
    }
    un1::SessionCapabilitiesAdditions session;
    if (!agent.sessionCapabilities.has_value() || !lifted.session.has_value() ||
        !decode_v1_additions(agent.sessionCapabilities->extra_fields, session)) {
        return;
    }
    const v2::ExtraFields& from = agent.sessionCapabilities->extra_fields;
    v2::ExtraFields& to = lifted.session->extra_fields;
    if (session.fork.has_value()) copy_extra(from, "fork", to);
    if (session.archive.has_value()) copy_extra(from, "archive", to);
    if (session.status.has_value()) copy_extra(from, "status", to);
    if (session.title.has_value()) copy_extra(from, "title", to);
    if (session.systemPrompt.has_value()) copy_extra(from, "systemPrompt", to);
}

Status lower_unstable_request(std::string_view name, const RawJson& params, RawJson& out,
                              std::vector<RawJson>& acp_entries) {
    acp_entries.clear();
    const V1Form* form = form_of(name);
    if (form == nullptr) {
        return Status(Errc::unsupported,
                      std::string(name) + ": ACP v1 has no such method, and the agent speaks v1; not sent");
    }
    return form->lower(params, out, acp_entries);
}

Status lift_unstable_answer(std::string_view name, const JsonValue& result, RawJson& out) {
    const V1Form* form = form_of(name);
    if (form == nullptr) return Status(Errc::internal, std::string(name) + ": no v1 form");
    return form->lift(result, out);
}

Status with_fork_options(RawJson& answer, const std::optional<std::vector<v2::SessionConfigOption>>& options) {
    Document json;
    if (Status s = parse(answer, json); !s) return s;
    un2::ForkSessionResponse fork;
    if (Status s = un2::codec::decode(json, fork); !s) return s;
    fork.configOptions = options;
    answer = encode_raw(fork);
    return Status();
}

}  // namespace acp::detail
