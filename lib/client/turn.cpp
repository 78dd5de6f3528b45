// SPDX-License-Identifier: Apache-2.0
// acp::prompt_turn (include/acp/turn.hpp): a prompt, the text of the reply as it streams,
// and the end of the turn, all read from the session model's change events.
#include "acp/turn.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <utility>

#include "client/client_access.hpp"

namespace acp {
namespace {

std::string message_text(const MessageItem& message) {
    std::string text;
    for (const auto& block : message.content) {
        if (const v2::TextContent* t = block.text()) text += t->text;
    }
    return text;
}

// One turn, from the prompt to its end. Owned by the closures that can still advance it
// (the model observer, the prompt's callback, the posted end); the Client's session store
// and deferred queue drop those when the Client goes, and the turn with them.
class TurnFollower : public std::enable_shared_from_this<TurnFollower> {
public:
    TurnFollower(detail::ClientCore& core, std::string session_id, TurnTextHandler on_text, Callback<TurnEnd> done)
        : core_(core), session_id_(std::move(session_id)), on_text_(std::move(on_text)), done_(std::move(done)) {}

    RequestHandle start(Client& client, std::vector<v2::ContentBlock> prompt) {
        if (const SessionState* state = core_.store.find(session_id_)) first_index_ = state->items().size();
        // The model observer owns the follower until the turn ends (finish unsubscribes).
        subscription_ =
            core_.store.subscribe([self = shared_from_this()](const SessionEvent& event) { self->on_change(event); });
        std::weak_ptr<TurnFollower> weak = weak_from_this();
        closed_watch_ = std::make_shared<std::function<void(const Status&)>>([weak](const Status& why) {
            auto self = weak.lock();
            if (!self) return;
            self->finish(why.ok() ? Status(Errc::connection_closed, "the connection ended before the turn did") : why);
        });
        auto& watchers = core_.closed_watchers;
        watchers.erase(std::remove_if(watchers.begin(), watchers.end(), [](const auto& w) { return w.expired(); }),
                       watchers.end());
        watchers.push_back(closed_watch_);
        // Text goes out once the change that brought it is complete, before the host's
        // handler of the same message: in order with updates and permission requests.
        settled_watch_ = std::make_shared<std::function<void()>>([weak] {
            if (auto self = weak.lock()) self->flush_text();
        });
        core_.settled_watchers.push_back(settled_watch_);

        v2::PromptRequest request;
        request.sessionId = session_id_;
        request.prompt = std::move(prompt);
        auto self = shared_from_this();
        return client.prompt(std::move(request), [self](Result<v2::PromptResponse> response) {
            if (!response) return self->finish(response.status());
            self->on_response(response->messageId);
        });
    }

private:
    struct Ended {
        std::size_t items;  // the session's item count when the turn ended
        TurnEnd end;
    };
    struct Pending {
        std::string message_id;
        std::string text;
        bool starts_message;
    };

    void on_change(const SessionEvent& event) {
        if (finished_ || event.session_id != session_id_) return;
        switch (event.type) {
            case SessionEvent::Type::session_removed:
                return finish(
                    Status(Errc::cancelled, "the session " + session_id_ + " was closed before the turn ended"));
            case SessionEvent::Type::item_inserted:
            case SessionEvent::Type::item_changed:
                if (event.item_kind == ItemKind::user_message) return on_user_message(event);
                if (event.item_kind == ItemKind::agent_message) return on_agent_text(event);
                return;
            case SessionEvent::Type::turn_ended: return on_turn_ended(event);
            default: return;
        }
    }

    // Until the response names the user message, the first one inserted after the prompt
    // was sent is taken as the prompt's own, to tell the reply from earlier messages.
    void on_user_message(const SessionEvent& event) {
        if (event.type != SessionEvent::Type::item_inserted || user_index_confirmed_) return;
        if (!responded_) {
            if (!user_index_ && event.index >= first_index_) user_index_ = event.index;
            return;
        }
        if (event.item_id == user_message_id_) confirm(event.index);
    }

    void on_agent_text(const SessionEvent& event) {
        if (event.index < first_index_ || (user_index_ && event.index <= *user_index_)) return;
        auto seen = delivered_.find(event.index);
        const bool starts = seen == delivered_.end();
        std::size_t& delivered = delivered_[event.index];
        std::string piece;
        if (event.appended_text) {
            piece.assign(*event.appended_text);
            delivered += piece.size();
        } else if (event.session != nullptr && event.index < event.session->items().size()) {
            // A whole message (or an upsert): report what it holds beyond what was reported.
            const MessageItem* message = event.session->items()[event.index].message();
            if (message == nullptr) return;
            std::string text = message_text(*message);
            if (text.size() > delivered) piece = text.substr(delivered);
            delivered = text.size();
        }
        if (piece.empty()) return;
        if (!starts && !pending_.empty() && pending_.back().message_id == event.item_id) {
            pending_.back().text += piece;
        } else {
            pending_.push_back(Pending{std::string(event.item_id), std::move(piece), starts});
        }
    }

    void on_turn_ended(const SessionEvent& event) {
        const ForegroundState& foreground = event.session->foreground();
        Ended ended{event.session->items().size(), TurnEnd{}};
        ended.end.stop_reason = foreground.stop_reason;
        ended.end.error = foreground.error;
        // An end seen once the prompt's user message is in the model is this turn's.
        if (user_index_confirmed_ || (responded_ && user_message_id_.empty())) return finish(std::move(ended.end));
        ends_.push_back(std::move(ended));
    }

    void on_response(const std::string& message_id) {
        responded_ = true;
        user_message_id_ = message_id;
        if (message_id.empty()) {
            // An agent of an earlier draft names no message: the first end after the prompt.
            if (!ends_.empty()) finish(std::move(ends_.front().end));
            return;
        }
        const SessionState* state = core_.store.find(session_id_);
        std::optional<std::size_t> index = state ? state->find(ItemKind::user_message, message_id) : std::nullopt;
        if (index) confirm(*index);
    }

    void confirm(std::size_t index) {
        user_index_ = index;
        user_index_confirmed_ = true;
        for (auto& ended : ends_) {
            if (ended.items > index) return finish(std::move(ended.end));
        }
        ends_.clear();
    }

    void flush_text() {
        if (pending_.empty()) return;
        auto pending = std::move(pending_);
        pending_.clear();
        if (!on_text_) return;
        for (const auto& p : pending) on_text_(TurnText{p.message_id, p.text, p.starts_message});
    }

    void finish(Result<TurnEnd> result) {
        if (finished_) return;
        finished_ = true;
        if (result) result->user_message_id = user_message_id_;
        subscription_.reset();
        closed_watch_.reset();
        settled_watch_.reset();
        core_.deferred.post([self = shared_from_this(), result = std::move(result)]() mutable {
            self->flush_text();
            auto done = std::move(self->done_);
            self->on_text_ = nullptr;
            if (done) done(std::move(result));
        });
    }

    detail::ClientCore& core_;
    std::string session_id_;
    TurnTextHandler on_text_;
    Callback<TurnEnd> done_;
    SessionSubscription subscription_;
    std::shared_ptr<std::function<void(const Status&)>> closed_watch_;
    std::shared_ptr<std::function<void()>> settled_watch_;

    std::size_t first_index_ = 0;            // items before the prompt: never this turn's
    std::optional<std::size_t> user_index_;  // the prompt's user message in the model
    bool user_index_confirmed_ = false;      // named by the response, not just guessed
    bool responded_ = false;
    std::string user_message_id_;
    std::vector<Ended> ends_;                                 // turn ends seen before the user message was placed
    std::unordered_map<std::size_t, std::size_t> delivered_;  // agent message index -> bytes reported
    std::vector<Pending> pending_;
    bool finished_ = false;
};

}  // namespace

RequestHandle prompt_turn(Client& client, const std::string& session_id, std::vector<v2::ContentBlock> prompt,
                          TurnTextHandler on_text, Callback<TurnEnd> done) {
    auto follower = std::make_shared<TurnFollower>(detail::ClientAccess::core(client), session_id, std::move(on_text),
                                                   std::move(done));
    return follower->start(client, std::move(prompt));
}

RequestHandle prompt_turn(Client& client, const std::string& session_id, std::string text, TurnTextHandler on_text,
                          Callback<TurnEnd> done) {
    v2::TextContent content;
    content.text = std::move(text);
    std::vector<v2::ContentBlock> prompt;
    prompt.push_back(v2::ContentBlock::make_text(std::move(content)));
    return prompt_turn(client, session_id, std::move(prompt), std::move(on_text), std::move(done));
}

}  // namespace acp
