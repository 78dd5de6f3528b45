// SPDX-License-Identifier: Apache-2.0
// Two transports joined back to back in memory, for tests: what one side writes, the
// other reads on a later loop turn. Closing one side ends both.
#pragma once

#include <uv.h>

#include <memory>
#include <utility>

#include "transport/transport.hpp"

namespace acp::detail {

std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>> make_memory_transport_pair(uv_loop_t* loop);

}  // namespace acp::detail
