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

#include <cstddef>
#include <initializer_list>
#include <new>
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
// holds a value; Nullable<T>::null() is an explicit JSON null. The value lives in the
// object itself (no allocation); it is not a std::optional because every protocol header
// instantiates Nullable for dozens of types, and optional's machinery made that the
// largest part of a host's compile time (docs/protocol-types.md).
template <class T>
class Nullable {
public:
    Nullable() noexcept {}  // NOLINT(modernize-use-equals-default): the union member needs it
    Nullable(T value) : state_(State::value) { new (&value_) T(std::move(value)); }  // NOLINT: implicit by design
    // Anything T can be built from (a string literal for Nullable<std::string>, ...). The
    // cheap tests come first, in their own parameter: substitution stops at the first that
    // fails, so copying a Nullable never asks whether T is constructible from one.
    template <class U,
              std::enable_if_t<!std::is_same_v<std::decay_t<U>, Nullable> && !std::is_same_v<std::decay_t<U>, T> &&
                                   !std::is_same_v<std::decay_t<U>, std::nullptr_t>,
                               int> = 0,
              std::enable_if_t<std::is_constructible_v<T, U&&>, int> = 0>
    Nullable(U&& value) : state_(State::value) {  // NOLINT
        new (&value_) T(std::forward<U>(value));
    }
    Nullable(const Nullable& other) : state_(other.state_) {
        if (has_value()) new (&value_) T(other.value_);
    }
    Nullable(Nullable&& other) noexcept : state_(other.state_) {
        if (has_value()) new (&value_) T(std::move(other.value_));
    }
    Nullable& operator=(const Nullable& other) {
        if (this != &other) *this = Nullable(other);
        return *this;
    }
    Nullable& operator=(Nullable&& other) noexcept {
        if (this == &other) return *this;
        destroy();
        if (other.has_value()) new (&value_) T(std::move(other.value_));
        state_ = other.state_;
        return *this;
    }
    ~Nullable() { destroy(); }

    static Nullable null() {
        Nullable result;
        result.state_ = State::null;
        return result;
    }

    bool is_absent() const { return state_ == State::absent; }
    bool is_null() const { return state_ == State::null; }
    bool has_value() const { return state_ == State::value; }

    // Precondition for value(), *, ->: has_value().
    T& value() & { return value_; }
    const T& value() const& { return value_; }
    T&& value() && { return std::move(value_); }
    T& operator*() & { return value_; }
    const T& operator*() const& { return value_; }
    T* operator->() { return &value_; }
    const T* operator->() const { return &value_; }

    // The value, or fallback when absent or null.
    template <class U>
    T value_or(U&& fallback) const {
        return has_value() ? value_ : static_cast<T>(std::forward<U>(fallback));
    }

    // Makes the field hold a default-constructed value and returns it.
    T& emplace() {
        destroy();
        new (&value_) T();
        state_ = State::value;
        return value_;
    }
    void reset() {
        destroy();
        state_ = State::absent;
    }
    void set_null() {
        destroy();
        state_ = State::null;
    }

    friend bool operator==(const Nullable& a, const Nullable& b) {
        if (a.state_ != b.state_) return false;
        return a.state_ != State::value || a.value_ == b.value_;
    }
    friend bool operator!=(const Nullable& a, const Nullable& b) { return !(a == b); }

private:
    enum class State : unsigned char { absent, null, value };
    void destroy() noexcept {
        if (state_ == State::value) value_.~T();
        state_ = State::absent;
    }
    State state_ = State::absent;
    union {
        T value_;
    };
};

namespace detail {
// The size of a protocol union's payload storage: its largest alternative.
constexpr std::size_t storage_size(std::initializer_list<std::size_t> sizes) {
    std::size_t largest = 1;
    for (std::size_t size : sizes) largest = size > largest ? size : largest;
    return largest;
}
}  // namespace detail

}  // namespace acp
