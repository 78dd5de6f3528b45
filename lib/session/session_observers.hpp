// SPDX-License-Identifier: Apache-2.0
// session/session_observers.hpp — the observers of a SessionStore, safe to change while
// they are being called (an observer may unsubscribe itself or subscribe another).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "acp/session.hpp"

namespace acp {

namespace detail {

struct SessionObservers {
    struct Entry {
        std::uint64_t id;
        SessionObserver observer;
        // Cleared on unsubscribe; the function itself is destroyed only outside a dispatch,
        // so an observer may unsubscribe itself while it runs.
        bool active = true;
    };
    std::vector<Entry> entries;
    // Subscribed while a dispatch runs: joined afterwards, so the vector being iterated
    // never reallocates under a running observer.
    std::vector<Entry> added;
    std::uint64_t next_id = 1;
    int dispatching = 0;
    bool has_removed = false;

    bool empty() const { return entries.empty() && added.empty(); }

    void dispatch(const SessionEvent& event) {
        ++dispatching;
        const std::size_t count = entries.size();
        for (std::size_t i = 0; i < count; ++i) {
            if (entries[i].active) entries[i].observer(event);
        }
        if (--dispatching == 0) settle();
    }

    void remove(std::uint64_t id) {
        for (auto* list : {&entries, &added}) {
            for (auto& entry : *list) {
                if (entry.id == id) entry.active = false;
            }
        }
        has_removed = true;
        if (dispatching == 0) settle();
    }

    void settle() {
        for (auto& entry : added) entries.push_back(std::move(entry));
        added.clear();
        if (has_removed) {
            entries.erase(std::remove_if(entries.begin(), entries.end(), [](const Entry& e) { return !e.active; }),
                          entries.end());
            has_removed = false;
        }
    }
};

}  // namespace detail

}  // namespace acp
