// SPDX-License-Identifier: Apache-2.0
#include "client/tool_offers.hpp"

#include <utility>

#include "client/tool_carriers.hpp"
#include "tools/tool_server_impl.hpp"

namespace acp::detail {

ToolOffers::Offer::~Offer() {
    auto registrations = acp.lock();
    for (auto& one : served) {
        if (one.endpoint) one.endpoint->close(tell_host);
        if (registrations && !one.acp_server_id.empty()) registrations->remove(one.acp_server_id);
        one.carrier.reset();
    }
}

ToolOffers::ToolOffers(uv_loop_t* loop, Connection& rpc, Logger logger)
    : loop_(loop), logger_(logger), acp_(std::make_shared<tools::McpOverAcp>(rpc, std::move(logger))) {}

// Only while the Client::Impl is destroyed: the host is gone.
ToolOffers::~ToolOffers() { clear(false); }

std::shared_ptr<ToolOffers::Offer> ToolOffers::prepare(const ToolServers& servers) const {
    auto offer = std::make_shared<Offer>();
    offer->acp = acp_;
    for (const auto& server : servers) {
        if (server) offer->served.push_back(Offer::Served{server->impl(), nullptr, {}, nullptr});
    }
    return offer;
}

Result<std::vector<v2::McpServer>> ToolOffers::start(Offer& offer, ToolTransport transport) {
    std::vector<v2::McpServer> entries;
    offer.transport = transport;
    for (auto& served : offer.served) {
        const ToolServer::Impl& server = *served.server;
        // MCP over ACP has the binding's own mode: no handshake, MCP 2026-07-28 metadata
        // on every request.
        const auto mode = transport == ToolTransport::acp ? tools::ToolEndpoint::Mode::acp_binding
                                                          : tools::ToolEndpoint::Mode::session;
        served.endpoint = tools::ToolEndpoint::create(served.server, mode, logger_);
        if (transport == ToolTransport::acp) {
            served.acp_server_id = acp_->add(server.name, *served.endpoint, server.options.max_concurrent_calls);
            rapidjson::StringBuffer buffer;
            JsonWriter w(buffer);
            w.StartObject();
            w.Key("type");
            w.String("acp");
            w.Key("name");
            write_string(w, server.name);
            w.Key("serverId");
            write_string(w, served.acp_server_id);
            w.EndObject();
            entries.push_back(
                v2::McpServer::make_unknown("acp", RawJson{std::string(buffer.GetString(), buffer.GetSize())}));
            continue;
        }
        auto started = start_carrier(transport, loop_, *served.endpoint, logger_, server.name);
        if (!started) return started.status();
        served.carrier = std::move(started->carrier);
        entries.push_back(std::move(started->entry));
    }
    return entries;
}

void ToolOffers::attach(const std::string& session_id, std::shared_ptr<Offer> offer) {
    if (!offer || offer->served.empty()) return release(session_id);
    std::string names;
    for (auto& served : offer->served) {
        if (served.endpoint) served.endpoint->set_session_id(session_id);
        names += (names.empty() ? "'" : ", '") + served.server->name + "'";
    }
    logger_(LogLevel::info, log_source::client,
            "session " + session_id + ": tool servers " + names + " offered over " +
                std::string(tool_transport_name(offer->transport.value_or(ToolTransport::acp))));
    sessions_[session_id] = std::move(offer);
}

void ToolOffers::release(const std::string& session_id) {
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) return;
    auto offer = std::move(it->second);
    sessions_.erase(it);
}

void ToolOffers::clear(bool tell_host) {
    auto sessions = std::move(sessions_);
    sessions_.clear();
    for (auto& entry : sessions) entry.second->tell_host = tell_host;
}

}  // namespace acp::detail
