// SPDX-License-Identifier: Apache-2.0
#include "transport/memory_transport.hpp"

#include <string>

#include "support/deferred_queue.hpp"

namespace acp::detail {

namespace {

struct Link;

class MemoryEnd final : public Transport {
public:
    MemoryEnd(std::shared_ptr<Link> link, int side) : link_(std::move(link)), side_(side) {}
    ~MemoryEnd() override;

    void start(TransportEvents* events) override;
    void write(std::string_view bytes, WriteCause cause) override;
    void close() override;
    void detach() override;

private:
    std::shared_ptr<Link> link_;
    int side_;
};

// The shared middle: both ends' event sinks and one queue that delivers in order.
struct Link : std::enable_shared_from_this<Link> {
    explicit Link(uv_loop_t* loop) : deferred(loop) {}

    DeferredQueue deferred;
    TransportEvents* events[2] = {nullptr, nullptr};
    bool closed = false;

    void deliver(int to_side, std::string bytes) {
        std::weak_ptr<Link> weak = shared_from_this();
        deferred.post([weak, to_side, bytes = std::move(bytes)]() mutable {
            auto link = weak.lock();
            // Bytes written before a close still arrive, as they would through a pipe.
            if (link && link->events[to_side] != nullptr) {
                link->events[to_side]->on_transport_data(&bytes[0], bytes.size());
            }
        });
    }

    void close_both(int by_side) {
        if (closed) return;
        closed = true;
        std::weak_ptr<Link> weak = shared_from_this();
        deferred.post([weak, by_side] {
            auto link = weak.lock();
            if (!link) return;
            for (int side : {by_side, 1 - by_side}) {
                auto* sink = link->events[side];
                link->events[side] = nullptr;
                if (sink != nullptr) {
                    sink->on_transport_closed(
                        Status(Errc::connection_closed, side == by_side ? "the connection was closed by this side"
                                                                        : "the connection was closed by the peer"));
                }
            }
        });
    }
};

MemoryEnd::~MemoryEnd() {
    link_->events[side_] = nullptr;
    link_->close_both(side_);
}

void MemoryEnd::start(TransportEvents* events) { link_->events[side_] = events; }

void MemoryEnd::write(std::string_view bytes, WriteCause /*cause*/) {
    if (link_->closed || bytes.empty()) return;
    link_->deliver(1 - side_, std::string(bytes));
}

void MemoryEnd::close() { link_->close_both(side_); }

void MemoryEnd::detach() { link_->events[side_] = nullptr; }

}  // namespace

std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>> make_memory_transport_pair(uv_loop_t* loop) {
    auto link = std::make_shared<Link>(loop);
    return {std::make_unique<MemoryEnd>(link, 0), std::make_unique<MemoryEnd>(link, 1)};
}

}  // namespace acp::detail
