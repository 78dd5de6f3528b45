// Randomized check of the reducer: random interleavings of chunks, full updates, patches
// and nulls, applied to the store and to a deliberately naive reference model kept here
// (raw block lists, normalised only when compared; terminal bytes decoded in one go).
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "session/terminal_bytes.hpp"
#include "unit/session/session_test_util.hpp"
#include "support/base64.hpp"

namespace {

struct RefBlock {
    bool plain;        // plain text: merges with plain neighbours when rendered
    std::string text;  // for plain blocks
    std::string json;  // for the others, as the codec writes them
};

struct RefEntity {
    std::string kind;
    std::string id;
    std::vector<RefBlock> blocks;             // messages
    std::map<std::string, std::string> meta;  // upserts
    bool has_title = false;                   // tool calls
    std::string title;
    std::string status = "pending";
    std::vector<std::string> tool_content;
    std::string bytes;  // terminals
};

class Reference {
public:
    RefEntity& entity(const std::string& kind, const std::string& id) {
        const std::string key = kind + "\n" + id;
        auto found = index_.find(key);
        if (found != index_.end()) return entities_[found->second];
        index_[key] = entities_.size();
        entities_.push_back(RefEntity{kind, id, {}, {}, false, {}, "pending", {}, {}});
        return entities_.back();
    }

    std::string items_json() const {
        std::string out = "[";
        for (std::size_t i = 0; i < entities_.size(); ++i) {
            if (i != 0) out += ",";
            out += entity_json(entities_[i]);
        }
        return out + "]";
    }

private:
    static std::string quoted(const std::string& text) {
        rapidjson::StringBuffer buffer;
        acp::detail::JsonWriter writer(buffer);
        writer.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
        return std::string(buffer.GetString(), buffer.GetSize());
    }

    static std::string meta_json(const std::map<std::string, std::string>& meta) {
        std::string out = "{";
        for (const auto& [key, value] : meta) {
            if (out.size() > 1) out += ",";
            out += quoted(key) + ":" + value;
        }
        return out + "}";
    }

    static std::string entity_json(const RefEntity& e) {
        std::string out = R"({"kind":")" + e.kind + R"(","id":)" + quoted(e.id);
        if (e.kind == "tool_call") {
            out += R"(,"name":null,"title":)" + (e.has_title ? quoted(e.title) : "null");
            out += R"(,"toolKind":"other","status":")" + e.status + R"(","content":[)";
            for (std::size_t i = 0; i < e.tool_content.size(); ++i) out += (i ? "," : "") + e.tool_content[i];
            out += R"(],"locations":[],"rawInput":null,"rawOutput":null,"capabilities":null,"_meta":)" + meta_json(e.meta) + "}";
            return out;
        }
        if (e.kind == "terminal") {
            std::string pending;
            std::string text;
            acp::detail::utf8_decode_append(e.bytes, pending, text);
            out += R"(,"command":null,"cwd":null,"output":)" + quoted(text) + R"(,"outputBytes":)" +
                   std::to_string(e.bytes.size()) + R"(,"exitStatus":null,"size":null,"capabilities":null,"_meta":)" +
                   meta_json(e.meta) + "}";
            return out;
        }
        out += R"(,"content":[)";
        bool first = true;
        std::string run;
        bool in_run = false;
        auto flush = [&] {
            if (!in_run) return;
            out += (first ? "" : ",") + std::string(R"({"type":"text","text":)") + quoted(run) + "}";
            first = false;
            run.clear();
            in_run = false;
        };
        for (const auto& block : e.blocks) {
            if (block.plain) {
                run += block.text;
                in_run = true;
            } else {
                flush();
                out += (first ? "" : ",") + block.json;
                first = false;
            }
        }
        flush();
        return out + R"(],"_meta":)" + meta_json(e.meta) + "}";
    }

    std::vector<RefEntity> entities_;
    std::map<std::string, std::size_t> index_;
};

class Generator {
public:
    explicit Generator(unsigned seed) : rng_(seed) {}

    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

    std::string text() {
        static const char* const pieces[] = {"a", "b", " ", "\xC3\xA9", "\xE2\x82\xAC", "xyz"};
        std::string out;
        for (int i = pick(3); i >= 0; --i) out += pieces[pick(6)];
        return out;
    }

    RefBlock block() {
        switch (pick(4)) {
            case 0: return {false, {}, R"({"type":"image","data":"aGk=","mimeType":"image/png"})"};
            case 1: {
                const std::string t = text();
                return {false, {}, R"({"type":"text","text":")" + t + R"(","annotations":{"priority":0.5}})"};
            }
            default: {
                const std::string t = text();
                return {true, t, R"({"type":"text","text":")" + t + R"("})"};
            }
        }
    }

    // A _meta patch as JSON (or "" for absent), applied to the reference's map.
    std::string meta(std::map<std::string, std::string>& target) {
        switch (pick(5)) {
            case 0: return "";
            case 1: target.clear(); return "null";
            default: {
                std::string out = "{";
                for (const char* key : {"a", "b", "c"}) {
                    const int what = pick(3);
                    if (what == 0) continue;
                    if (out.size() > 1) out += ",";
                    if (what == 1) {
                        out += std::string("\"") + key + "\":null";
                        target.erase(key);
                    } else {
                        const std::string value = std::to_string(pick(100));
                        out += std::string("\"") + key + "\":" + value;
                        target[key] = value;
                    }
                }
                return out + "}";
            }
        }
    }

    std::string bytes() {
        static const char* const pieces[] = {"ok ", "\xC3", "\xA9", "\xE2\x82", "\xAC", "\xFF", "\xF0\x9F\x98", "\x80"};
        std::string out;
        for (int i = pick(3); i >= 0; --i) out += pieces[pick(8)];
        return out;
    }

private:
    std::mt19937 rng_;
};

using acp::test::base64;

// One random update: applied to the reference here, returned as JSON for the store.
std::string step(Generator& g, Reference& ref) {
    static const char* const message_kinds[] = {"user_message", "agent_message", "agent_thought"};
    static const char* const statuses[] = {"in_progress", "completed", "failed", "_acme_waiting"};
    const int family = g.pick(10);
    if (family < 6) {
        const std::string kind = message_kinds[g.pick(3)];
        const std::string id = "m" + std::to_string(g.pick(3));
        RefEntity& e = ref.entity(kind, id);
        if (family < 4) {
            const RefBlock block = g.block();
            e.blocks.push_back(block);
            return R"({"sessionUpdate":")" + kind + R"(_chunk","messageId":")" + id + R"(","content":)" + block.json + "}";
        }
        std::string update = R"({"sessionUpdate":")" + kind + R"(","messageId":")" + id + "\"";
        switch (g.pick(4)) {
            case 0: break;  // content absent: unchanged
            case 1: update += R"(,"content":null)"; e.blocks.clear(); break;
            default: {
                e.blocks.clear();
                update += R"(,"content":[)";
                for (int n = g.pick(4), i = 0; i < n; ++i) {
                    e.blocks.push_back(g.block());
                    update += (i ? "," : "") + e.blocks.back().json;
                }
                update += "]";
            }
        }
        const std::string meta = g.meta(e.meta);
        if (!meta.empty()) update += R"(,"_meta":)" + meta;
        return update + "}";
    }
    if (family < 9) {
        const std::string id = "c" + std::to_string(g.pick(2));
        RefEntity& e = ref.entity("tool_call", id);
        if (g.pick(3) == 0) {
            const std::string item = R"({"type":"terminal","terminalId":"t)" + std::to_string(g.pick(9)) + "\"}";
            e.tool_content.push_back(item);
            return R"({"sessionUpdate":"tool_call_content_chunk","toolCallId":")" + id + R"(","content":)" + item + "}";
        }
        std::string update = R"({"sessionUpdate":"tool_call_update","toolCallId":")" + id + "\"";
        switch (g.pick(3)) {
            case 0: break;
            case 1: update += R"(,"title":null)"; e.has_title = false; break;
            default: e.title = g.text(); e.has_title = true; update += R"(,"title":")" + e.title + "\"";
        }
        switch (g.pick(3)) {
            case 0: break;
            case 1: update += R"(,"status":null)"; e.status = "pending"; break;
            default: e.status = statuses[g.pick(4)]; update += R"(,"status":")" + e.status + "\"";
        }
        switch (g.pick(4)) {
            case 0: break;
            case 1: update += R"(,"content":null)"; e.tool_content.clear(); break;
            default: {
                e.tool_content.clear();
                update += R"(,"content":[)";
                for (int n = g.pick(3), i = 0; i < n; ++i) {
                    e.tool_content.push_back(R"({"type":"terminal","terminalId":"t)" + std::to_string(g.pick(9)) + "\"}");
                    update += (i ? "," : "") + e.tool_content.back();
                }
                update += "]";
            }
        }
        const std::string meta = g.meta(e.meta);
        if (!meta.empty()) update += R"(,"_meta":)" + meta;
        return update + "}";
    }
    RefEntity& e = ref.entity("terminal", "t0");
    const std::string bytes = g.bytes();
    switch (g.pick(5)) {
        case 0: e.bytes = bytes; return R"({"sessionUpdate":"terminal_update","terminalId":"t0","output":{"data":")" + base64(bytes) + "\"}}";
        case 1: e.bytes.clear(); return R"({"sessionUpdate":"terminal_update","terminalId":"t0","output":null})";
        default: e.bytes += bytes; return R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t0","data":")" + base64(bytes) + "\"}";
    }
}

}  // namespace

TEST_CASE("session random: interleaved chunks, upserts, patches and nulls agree with a reference model") {
    // CLIENT-MUST-49, -50, -51, -52, -53, -54
    constexpr unsigned sequences = 1000;
    constexpr int steps = 60;
    int compared = 0;
    for (unsigned seed = 1; seed <= sequences; ++seed) {
        Generator generator(seed);
        Reference reference;
        acp::SessionStore store;
        std::vector<std::string> applied;
        for (int i = 0; i < steps; ++i) {
            applied.push_back(step(generator, reference));
            const acp::Status status = store.apply(session_test::notification(applied.back()));
            if (!status.ok()) FAIL("seed " << seed << ": " << status.to_string());
            if (i % 6 == 5 || i == steps - 1) {
                const std::string actual = session_test::select(session_test::dump(store), "items");
                const std::string expected = reference.items_json();
                if (!codec_test::same_json(actual, expected)) {
                    std::string history;
                    for (const auto& update : applied) history += update + "\n";
                    FAIL("seed " << seed << " step " << i << "\nactual:   " << actual << "\nexpected: " << expected
                                 << "\nupdates:\n" << history);
                }
                ++compared;
            }
        }
    }
    CHECK(compared == static_cast<int>(sequences) * 10);
}
