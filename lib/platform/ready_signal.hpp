// SPDX-License-Identifier: Apache-2.0
// A descriptor that is readable exactly while a flag is raised, for hosts that wait on many
// descriptors at once (select, asyncio): the C API's pull queue raises it while it holds
// events (acp_client_event_fd). Any thread may raise and lower it.
//
// POSIX: a non-blocking pipe holding at most one byte. Windows: no descriptor a host could
// select() on, so descriptor() is -1 and raise/lower do nothing; hosts there take events
// from the queue after each run or from handlers.
//
//   ReadySignal ready;
//   if (Status s = ready.open(); !s) return s;
//   ready.raise();   // descriptor() polls readable
//   ready.lower();   // and no longer
#pragma once

#include "acp/status.hpp"

namespace acp::detail {

class ReadySignal {
public:
    ReadySignal() = default;
    ~ReadySignal();
    ReadySignal(const ReadySignal&) = delete;
    ReadySignal& operator=(const ReadySignal&) = delete;

    Status open();
    void raise();
    void lower();
    int descriptor() const { return read_end_; }

private:
    int read_end_ = -1;
    int write_end_ = -1;
};

}  // namespace acp::detail
