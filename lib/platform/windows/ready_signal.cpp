// SPDX-License-Identifier: Apache-2.0
#include "platform/ready_signal.hpp"

namespace acp::detail {

// No descriptor: Windows' select() takes sockets only, and a host there has no use for a pipe.
ReadySignal::~ReadySignal() = default;
Status ReadySignal::open() { return Status(); }
void ReadySignal::raise() {}
void ReadySignal::lower() {}

}  // namespace acp::detail
