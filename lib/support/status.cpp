// SPDX-License-Identifier: Apache-2.0
#include "acp/status.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace acp {

const char* errc_name(Errc code) {
    switch (code) {
        case Errc::ok: return "ok";
        case Errc::invalid_argument: return "invalid_argument";
        case Errc::spawn_failed: return "spawn_failed";
        case Errc::io_error: return "io_error";
        case Errc::connection_closed: return "connection_closed";
        case Errc::timed_out: return "timed_out";
        case Errc::cancelled: return "cancelled";
        case Errc::rpc_error: return "rpc_error";
        case Errc::protocol_error: return "protocol_error";
        case Errc::unsupported: return "unsupported";
        case Errc::internal: return "internal";
    }
    return "unknown";
}

namespace {
const std::string& empty_string() {
    static const std::string empty;
    return empty;
}
}  // namespace

Status::Status(Errc code, std::string message) {
    if (code == Errc::ok) return;
    auto detail = std::make_shared<Detail>();
    detail->code = code;
    detail->message = std::move(message);
    detail_ = std::move(detail);
}

Status Status::rpc(int rpc_code, std::string message, std::string data_json) {
    auto detail = std::make_shared<Detail>();
    detail->code = Errc::rpc_error;
    detail->message = std::move(message);
    detail->rpc_code = rpc_code;
    detail->rpc_data_json = std::move(data_json);
    Status status;
    status.detail_ = std::move(detail);
    return status;
}

const std::string& Status::message() const { return detail_ ? detail_->message : empty_string(); }

const std::string& Status::rpc_data_json() const { return detail_ ? detail_->rpc_data_json : empty_string(); }

Status Status::with_rpc_code(int rpc_code) const {
    if (!detail_) return *this;
    auto detail = std::make_shared<Detail>(*detail_);
    detail->rpc_code = rpc_code;
    Status status;
    status.detail_ = std::move(detail);
    return status;
}

Status Status::with_agent_exit(AgentExit exit) const {
    if (!detail_) return *this;
    auto detail = std::make_shared<Detail>(*detail_);
    detail->exit = std::move(exit);
    Status status;
    status.detail_ = std::move(detail);
    return status;
}

std::string Status::to_string() const {
    if (ok()) return "ok";
    std::string text = errc_name(detail_->code);
    if (detail_->code == Errc::rpc_error) text += " " + std::to_string(detail_->rpc_code);
    text += ": ";
    text += detail_->message;
    return text;
}

namespace detail {
void result_value_failed(const Status& status) {
    std::fprintf(stderr, "acp::Result::value() on an error: %s\n", status.to_string().c_str());
    std::fflush(stderr);
    std::abort();
}
}  // namespace detail

}  // namespace acp
