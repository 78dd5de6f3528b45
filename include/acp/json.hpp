// SPDX-License-Identifier: Apache-2.0
// acp/json.hpp — the two vocabulary types the protocol structs are built from.
//
// RawJson keeps one JSON value verbatim (compact text): `_meta`, values the schema leaves
// unconstrained, payloads of unknown union variants and unknown members. Nullable<T> is a
// field that can be absent, null or hold a value: ACP's patch updates give each of the
// three a different meaning (absent = unchanged, null = cleared, value = replaced).
//
//   acp::v2::ToolCallUpdate u = ...;
//   if (u.title.is_null()) clear_title();
//   else if (u.title.has_value()) set_title(*u.title);
//   // u.title.is_absent(): leave the title as it is
//
//   u.title = acp::Nullable<std::string>::null();   // sends "title": null
//   u._meta = acp::RawJson{R"({"traceparent":"00-..."})"};
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace acp {

// One JSON value as compact serialized text, e.g. `{"a":1}`, `"x"`, `null`. Equality
// compares the text, so `{"a":1,"b":2}` and `{"b":2,"a":1}` differ. An empty text is not
// valid JSON; the encoder writes it as `null`.
struct RawJson {
    std::string text;
};

inline bool operator==(const RawJson& a, const RawJson& b) { return a.text == b.text; }
inline bool operator!=(const RawJson& a, const RawJson& b) { return !(a == b); }

// Absent, null, or a value. Default-constructed it is absent; constructed from a T it
// holds a value; Nullable<T>::null() is an explicit JSON null.
template <class T>
class Nullable {
public:
    Nullable() = default;
    Nullable(T value) : state_(State::value), value_(std::move(value)) {}  // NOLINT: implicit by design
    // Anything T can be built from (a string literal for Nullable<std::string>, ...).
    template <class U, class = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                !std::is_same_v<std::decay_t<U>, Nullable> &&
                                                !std::is_same_v<std::decay_t<U>, T> &&
                                                !std::is_same_v<std::decay_t<U>, std::nullptr_t>>>
    Nullable(U&& value) : state_(State::value), value_(std::in_place, std::forward<U>(value)) {}  // NOLINT

    static Nullable null() {
        Nullable result;
        result.state_ = State::null;
        return result;
    }

    bool is_absent() const { return state_ == State::absent; }
    bool is_null() const { return state_ == State::null; }
    bool has_value() const { return state_ == State::value; }

    // Precondition for value(), *, ->: has_value().
    T& value() & { return *value_; }
    const T& value() const& { return *value_; }
    T&& value() && { return std::move(*value_); }
    T& operator*() & { return *value_; }
    const T& operator*() const& { return *value_; }
    T* operator->() { return &*value_; }
    const T* operator->() const { return &*value_; }

    // The value, or fallback when absent or null.
    template <class U>
    T value_or(U&& fallback) const {
        return has_value() ? *value_ : static_cast<T>(std::forward<U>(fallback));
    }

    // Makes the field hold a default-constructed value and returns it.
    T& emplace() {
        value_.emplace();
        state_ = State::value;
        return *value_;
    }
    void reset() {
        value_.reset();
        state_ = State::absent;
    }
    void set_null() {
        value_.reset();
        state_ = State::null;
    }

    friend bool operator==(const Nullable& a, const Nullable& b) {
        if (a.state_ != b.state_) return false;
        return a.state_ != State::value || *a.value_ == *b.value_;
    }
    friend bool operator!=(const Nullable& a, const Nullable& b) { return !(a == b); }

private:
    enum class State : unsigned char { absent, null, value };
    State state_ = State::absent;
    std::optional<T> value_;
};

}  // namespace acp
