// SPDX-License-Identifier: Apache-2.0
// acp/status.hpp — how libacp reports expected failures: as values, never exceptions.
//
// Every fallible call returns a Status (or a Result<T> holding a value or a Status).
// Protocol errors (the agent answered a request with a JSON-RPC error) keep the
// JSON-RPC code and data; connection errors (the agent exited, a timeout fired) carry
// what is known about the agent's exit.
//
//   acp::Result<int> r = parse_port(text);
//   if (!r) { std::cerr << r.status().to_string() << "\n"; return; }
//   use(*r);
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "acp/export.hpp"

namespace acp {

enum class Errc {
    ok = 0,
    invalid_argument,   // refused before anything was sent: the caller's input breaks a rule
    spawn_failed,       // the agent process could not be started
    io_error,           // reading or writing a stream failed
    connection_closed,  // the connection ended (agent exited, stream closed, client closed)
    timed_out,          // a per-request timeout fired
    cancelled,          // the request was cancelled by this side
    rpc_error,          // the peer answered with a JSON-RPC error object
    protocol_error,     // the peer broke the protocol (malformed or oversized message, ...)
    unsupported,        // the peer does not offer what was asked for
    internal,           // a bug in libacp or its host
};

// Name of an Errc, e.g. "connection_closed".
ACP_EXPORT const char* errc_name(Errc code);

// How the agent process ended, attached to connection_closed statuses.
struct AgentExit {
    bool exited = false;       // false: still running or never started
    int exit_code = 0;         // valid when term_signal == 0
    int term_signal = 0;       // the signal that ended the process, 0 if none
    bool requested = false;    // true when the client asked for the shutdown
    std::string stderr_tail;   // the last bytes the agent wrote to stderr
};

class ACP_EXPORT Status {
public:
    Status() = default;  // success
    Status(Errc code, std::string message);

    // The peer answered with a JSON-RPC error; data_json is the raw "data" member or "".
    static Status rpc(int rpc_code, std::string message, std::string data_json = {});

    bool ok() const { return detail_ == nullptr; }
    explicit operator bool() const { return ok(); }

    Errc code() const { return detail_ ? detail_->code : Errc::ok; }
    const std::string& message() const;
    // JSON-RPC error code when code() == Errc::rpc_error (or a local error that mirrors one).
    int rpc_code() const { return detail_ ? detail_->rpc_code : 0; }
    const std::string& rpc_data_json() const;
    // Present when the status reports the end of an agent process.
    const AgentExit* agent_exit() const { return detail_ && detail_->exit ? &*detail_->exit : nullptr; }

    Status with_rpc_code(int rpc_code) const;
    Status with_agent_exit(AgentExit exit) const;

    // One line for logs: "connection_closed: agent exited with code 3".
    std::string to_string() const;

private:
    struct Detail {
        Errc code = Errc::ok;
        std::string message;
        int rpc_code = 0;
        std::string rpc_data_json;
        std::optional<AgentExit> exit;
    };
    // Shared and immutable, so copying a status on a hot path costs one refcount.
    std::shared_ptr<const Detail> detail_;
};

template <class T>
class Result {
public:
    Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
    Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    const Status& status() const { return status_; }

    T& value() & { return *value_; }
    const T& value() const& { return *value_; }
    T&& value() && { return std::move(*value_); }
    T& operator*() & { return *value_; }
    const T& operator*() const& { return *value_; }
    T* operator->() { return &*value_; }
    const T* operator->() const { return &*value_; }

private:
    std::optional<T> value_;
    Status status_;
};

}  // namespace acp
