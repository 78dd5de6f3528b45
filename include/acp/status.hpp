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
//
// Both types are [[nodiscard]]: a call whose failure is dropped does not compile (with
// -Werror) or warns. To drop one on purpose, say so: `(void)client.cancel(id);` with a
// comment why. Result::value() on an error is never undefined behaviour: it writes the
// status to stderr and aborts, in every build; `*r` and `r->` are checked the same way in
// debug builds only (they are the hot-path accessors). value_or() gives a fallback.
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
    bool exited = false;      // false: still running or never started
    int exit_code = 0;        // valid when term_signal == 0
    int term_signal = 0;      // the signal that ended the process, 0 if none
    bool requested = false;   // true when the client asked for the shutdown
    std::string stderr_tail;  // the last bytes the agent wrote to stderr
    // Set when the agent turned on libacp's guard process (stopped or killed it) and the
    // host swept the agent's tree itself: what happened, e.g. "the guard process was
    // killed by signal 9; 3 of the agent's processes were killed".
    std::string guard_report;
};

class ACP_NODISCARD_EXPORT Status {
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

namespace detail {
// Writes "acp::Result::value() on an error: <status>" to stderr and aborts.
[[noreturn]] ACP_EXPORT void result_value_failed(const Status& status);
}  // namespace detail

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
    Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    const Status& status() const { return status_; }

    // Checked in every build: on an error, reports the status and aborts.
    T& value() & { return checked(); }
    const T& value() const& { return checked(); }
    T&& value() && { return std::move(checked()); }
    template <class U>
    T value_or(U&& fallback) const& {
        return ok() ? *value_ : T(std::forward<U>(fallback));
    }

    // Checked in debug builds only.
    T& operator*() & { return debug_checked(); }
    const T& operator*() const& { return debug_checked(); }
    T* operator->() { return &debug_checked(); }
    const T* operator->() const { return &debug_checked(); }

private:
    T& checked() {
        if (!value_) detail::result_value_failed(status_);
        return *value_;
    }
    const T& checked() const {
        if (!value_) detail::result_value_failed(status_);
        return *value_;
    }
#ifndef NDEBUG
    T& debug_checked() { return checked(); }
    const T& debug_checked() const { return checked(); }
#else
    T& debug_checked() { return *value_; }
    const T& debug_checked() const { return *value_; }
#endif

    std::optional<T> value_;
    Status status_;
};

}  // namespace acp
