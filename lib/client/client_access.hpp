// SPDX-License-Identifier: Apache-2.0
// The Client's internals, for helpers the library builds on top of it (lib/client/turn.cpp).
#pragma once

#include "acp/client.hpp"
#include "client/client_impl.hpp"

namespace acp::detail {

struct ClientAccess {
    static ClientCore& core(Client& client) { return client.impl_->core_; }
    static Client::Impl& impl(Client& client) { return *client.impl_; }
    static const Client::Impl& impl(const Client& client) { return *client.impl_; }
};

}  // namespace acp::detail
