// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "support/deferred_queue.hpp"
#include "support/test_loop.hpp"

using acp::detail::DeferredQueue;

TEST_CASE("deferred queue: runs closures on a later loop turn, in order, never inside post") {
    acp::test::TestLoop loop;
    DeferredQueue queue(loop.get());
    std::vector<int> ran;
    queue.post([&] { ran.push_back(1); });
    queue.post([&] {
        ran.push_back(2);
        queue.post([&] { ran.push_back(4); });  // posted while running: runs on a later turn
    });
    queue.post([&] { ran.push_back(3); });
    CHECK(ran.empty());
    CHECK(loop.run_until([&] { return ran.size() == 4; }));
    CHECK(ran == std::vector<int>{1, 2, 3, 4});
}

TEST_CASE("deferred queue: does not keep the loop alive when empty, drops work when destroyed") {
    acp::test::TestLoop loop;
    bool ran = false;
    {
        DeferredQueue queue(loop.get());
        queue.post([&] { ran = true; });
    }
    loop.run_for(std::chrono::milliseconds(20));
    CHECK_FALSE(ran);
    DeferredQueue idle(loop.get());
    CHECK(uv_run(loop.get(), UV_RUN_NOWAIT) == 0);  // nothing queued: the loop may exit
}

TEST_CASE("deferred queue: a closure may destroy the queue that runs it") {
    acp::test::TestLoop loop;
    auto queue = std::make_unique<DeferredQueue>(loop.get());
    bool second_ran = false;
    queue->post([&] { queue.reset(); });
    queue->post([&] { second_ran = true; });
    CHECK(loop.run_until([&] { return queue == nullptr; }));
    loop.run_for(std::chrono::milliseconds(20));
    CHECK_FALSE(second_ran);
}
