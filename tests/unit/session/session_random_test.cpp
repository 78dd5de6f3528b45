// SPDX-License-Identifier: Apache-2.0
// Randomized check of the reducer: random interleavings of chunks, full updates, patches
// and nulls, applied to the store and to a deliberately naive reference model kept here
// (raw block lists, normalised only when compared; terminal bytes decoded in one go by a
// UTF-8 decoder of the test's own, not the library's).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/base64.hpp"
#include "unit/session/session_test_util.hpp"

namespace {

// The UTF-8 decoding of a whole byte buffer, written independently of
// lib/session/terminal_bytes.cpp: whether some bytes can begin a well-formed sequence is
// worked out from the code point ranges they can still reach (Unicode 3.9: an n-byte form
// encodes [0x80, 0x7FF], [0x800, 0xFFFF] or [0x10000, 0x10FFFF], never a surrogate), not
// from a table of lead and second bytes. Each maximal subpart of an ill-formed sequence
// becomes one U+FFFD; a well-formed but incomplete sequence at the very end is held back
// (not part of the text), as the store does until the next chunk arrives.
class Utf8Reference {
public:
    static std::string decode(const std::string& buffer) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(buffer.data());
        const std::size_t size = buffer.size();
        std::string text;
        std::size_t i = 0;
        while (i < size) {
            if (bytes[i] < 0x80) {
                text += static_cast<char>(bytes[i]);
                ++i;
                continue;
            }
            const int length = announced_length(bytes[i]);
            if (length == 0 || !can_begin_scalar(bytes + i, 1, length)) {
                text += replacement;
                ++i;
                continue;
            }
            int have = 1;
            while (have < length && i + static_cast<std::size_t>(have) < size && (bytes[i + have] & 0xC0) == 0x80 &&
                   can_begin_scalar(bytes + i, have + 1, length)) {
                ++have;
            }
            if (have == length) {
                text.append(buffer, i, static_cast<std::size_t>(length));
            } else if (i + static_cast<std::size_t>(have) == size) {
                break;  // incomplete at the end: held back
            } else {
                text += replacement;  // the maximal subpart, then resume at the offending byte
            }
            i += static_cast<std::size_t>(have);
        }
        return text;
    }

private:
    static constexpr const char* replacement = "\xEF\xBF\xBD";

    // The sequence length a byte's high bits announce (110xxxxx, 1110xxxx, 11110xxx), else 0.
    static int announced_length(unsigned char lead) {
        if ((lead & 0xE0) == 0xC0) return 2;
        if ((lead & 0xF0) == 0xE0) return 3;
        if ((lead & 0xF8) == 0xF0) return 4;
        return 0;
    }

    // Whether the first `have` bytes of an n-byte form (lead, then continuation bytes) still
    // reach a Unicode scalar value encoded in exactly n bytes.
    static bool can_begin_scalar(const unsigned char* bytes, int have, int length) {
        std::uint32_t bits = bytes[0] & (0x7Fu >> length);
        for (int k = 1; k < have; ++k) bits = (bits << 6) | (bytes[k] & 0x3Fu);
        const int free_bits = 6 * (length - have);
        std::uint32_t low = bits << free_bits;
        std::uint32_t high = low | ((std::uint32_t{1} << free_bits) - 1);
        static constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
        static constexpr std::uint32_t largest[] = {0, 0, 0x7FF, 0xFFFF, 0x10FFFF};
        low = std::max(low, smallest[length]);
        high = std::min(high, largest[length]);
        if (low > high) return false;
        return low < 0xD800 || high > 0xDFFF;  // not surrogates only
    }
};

TEST_CASE("session random: the reference UTF-8 decoder follows the maximal-subpart rule") {
    // Examples of Unicode 3.9, table 3-8 and around it, worked out by hand.
    const std::string fffd = "\xEF\xBF\xBD";
    CHECK(Utf8Reference::decode("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80") == "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
    CHECK(Utf8Reference::decode("\xC0\xAF") == fffd + fffd);                        // overlong lead
    CHECK(Utf8Reference::decode("\xE0\x80\xAF") == fffd + fffd + fffd);             // overlong second byte
    CHECK(Utf8Reference::decode("\xED\xA0\x80") == fffd + fffd + fffd);             // surrogate
    CHECK(Utf8Reference::decode("\xED\x9F\xBF") == "\xED\x9F\xBF");                 // U+D7FF
    CHECK(Utf8Reference::decode("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);  // above U+10FFFF
    CHECK(Utf8Reference::decode("\xF4\x8F\xBF\xBF") == "\xF4\x8F\xBF\xBF");         // U+10FFFF
    CHECK(Utf8Reference::decode("\xF5\x80") == fffd + fffd);
    CHECK(Utf8Reference::decode("\xE2\x82x") == fffd + "x");  // a truncated sequence is one U+FFFD
    CHECK(Utf8Reference::decode("\xF0\x9F\x98\xC3\xA9") == fffd + "\xC3\xA9");
    CHECK(Utf8Reference::decode("\x80\xBF") == fffd + fffd);
    CHECK(Utf8Reference::decode("ok\xF0\x9F\x98") == "ok");            // held back at the end
    CHECK(Utf8Reference::decode("ok\xE0\x80") == "ok" + fffd + fffd);  // not a prefix of anything: not held
}

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
    std::string tool_kind = "other";
    std::string status = "pending";
    std::vector<std::string> tool_content;
    std::vector<std::string> locations;
    std::string bytes;  // terminals
    std::string plan;   // plans: the plan object as sent
};

class Reference {
public:
    RefEntity& entity(const std::string& kind, const std::string& id) {
        const std::string key = kind + "\n" + id;
        auto found = index_.find(key);
        if (found != index_.end()) return entities_[found->second];
        index_[key] = entities_.size();
        entities_.push_back(RefEntity{});
        entities_.back().kind = kind;
        entities_.back().id = id;
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
            out += R"(,"toolKind":")" + e.tool_kind + R"(","status":")" + e.status + R"(","content":[)";
            for (std::size_t i = 0; i < e.tool_content.size(); ++i) out += (i ? "," : "") + e.tool_content[i];
            out += R"(],"locations":[)";
            for (std::size_t i = 0; i < e.locations.size(); ++i) out += (i ? "," : "") + e.locations[i];
            out += R"(],"rawInput":null,"rawOutput":null,"capabilities":null,"_meta":)" + meta_json(e.meta) + "}";
            return out;
        }
        if (e.kind == "plan") return out + R"(,"plan":)" + e.plan + R"(,"removed":false})";
        if (e.kind == "terminal") {
            const std::string text = Utf8Reference::decode(e.bytes);
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
        // Lead bytes, continuation bytes and pieces of well-formed sequences, some of them
        // only invalid together (surrogates, overlongs, beyond U+10FFFF).
        static const char* const pieces[] = {"ok ",          "\xC3", "\xA9", "\xE2\x82", "\xAC", "\xFF",
                                             "\xF0\x9F\x98", "\x80", "\xED", "\xA0",     "\xE0", "\xF4\x90",
                                             "\xF4",         "\x8F", "\xC1", "\xF5"};
        std::string out;
        for (int i = pick(3); i >= 0; --i) out += pieces[pick(16)];
        return out;
    }

    // A plan object of type items (or an unknown type, kept raw) for planId.
    std::string plan(const std::string& id) {
        static const char* const priorities[] = {"high", "medium", "low", "_acme_urgent"};
        static const char* const statuses[] = {"pending", "in_progress", "completed", "cancelled"};
        if (pick(5) == 0)
            return R"({"type":"_acme_markdown","planId":")" + id + R"(","content":")" + text() + R"(","n":[1]})";
        std::string out = R"({"type":"items","planId":")" + id + R"(","entries":[)";
        for (int n = pick(4), i = 0; i < n; ++i) {
            out += std::string(i ? "," : "") + R"({"content":")" + text() + R"(","priority":")" + priorities[pick(4)] +
                   R"(","status":")" + statuses[pick(4)] + "\"}";
        }
        return out + "]}";
    }

private:
    std::mt19937 rng_;
};

using acp::test::base64;

// One random update: applied to the reference here, returned as JSON for the store.
std::string step(Generator& g, Reference& ref) {
    static const char* const message_kinds[] = {"user_message", "agent_message", "agent_thought"};
    static const char* const statuses[] = {"in_progress", "completed", "failed", "_acme_waiting"};
    static const char* const tool_kinds[] = {"read", "edit", "execute", "_acme_kind"};
    static const char* const locations[] = {R"({"path":"/a"})", R"({"path":"/b","line":3})",
                                            R"({"path":"/c","line":1,"_meta":{"k":1}})"};
    const int family = g.pick(12);
    if (family < 6) {
        const std::string kind = message_kinds[g.pick(3)];
        const std::string id = "m" + std::to_string(g.pick(3));
        RefEntity& e = ref.entity(kind, id);
        if (family < 4) {
            const RefBlock block = g.block();
            e.blocks.push_back(block);
            return R"({"sessionUpdate":")" + kind + R"(_chunk","messageId":")" + id + R"(","content":)" + block.json +
                   "}";
        }
        std::string update = R"({"sessionUpdate":")" + kind + R"(","messageId":")" + id + "\"";
        switch (g.pick(4)) {
            case 0: break;  // content absent: unchanged
            case 1:
                update += R"(,"content":null)";
                e.blocks.clear();
                break;
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
            case 1:
                update += R"(,"title":null)";
                e.has_title = false;
                break;
            default:
                e.title = g.text();
                e.has_title = true;
                update += R"(,"title":")" + e.title + "\"";
        }
        switch (g.pick(3)) {
            case 0: break;
            case 1:
                update += R"(,"status":null)";
                e.status = "pending";
                break;
            default: e.status = statuses[g.pick(4)]; update += R"(,"status":")" + e.status + "\"";
        }
        switch (g.pick(3)) {
            case 0: break;
            case 1:
                update += R"(,"kind":null)";
                e.tool_kind = "other";
                break;
            default: e.tool_kind = tool_kinds[g.pick(4)]; update += R"(,"kind":")" + e.tool_kind + "\"";
        }
        switch (g.pick(4)) {
            case 0: break;
            case 1:
                update += R"(,"locations":null)";
                e.locations.clear();
                break;
            default: {
                e.locations.clear();
                update += R"(,"locations":[)";
                for (int n = g.pick(3), i = 0; i < n; ++i) {
                    e.locations.push_back(locations[g.pick(3)]);
                    update += (i ? "," : "") + e.locations.back();
                }
                update += "]";
            }
        }
        switch (g.pick(4)) {
            case 0: break;
            case 1:
                update += R"(,"content":null)";
                e.tool_content.clear();
                break;
            default: {
                e.tool_content.clear();
                update += R"(,"content":[)";
                for (int n = g.pick(3), i = 0; i < n; ++i) {
                    e.tool_content.push_back(R"({"type":"terminal","terminalId":"t)" + std::to_string(g.pick(9)) +
                                             "\"}");
                    update += (i ? "," : "") + e.tool_content.back();
                }
                update += "]";
            }
        }
        const std::string meta = g.meta(e.meta);
        if (!meta.empty()) update += R"(,"_meta":)" + meta;
        return update + "}";
    }
    if (family < 11) {
        const std::string id = "t" + std::to_string(g.pick(2));
        RefEntity& e = ref.entity("terminal", id);
        const std::string bytes = g.bytes();
        const std::string head = R"(","terminalId":")" + id + "\"";
        switch (g.pick(5)) {
            case 0:
                e.bytes = bytes;
                return R"({"sessionUpdate":"terminal_update)" + head + R"(,"output":{"data":")" + base64(bytes) +
                       "\"}}";
            case 1: e.bytes.clear(); return R"({"sessionUpdate":"terminal_update)" + head + R"(,"output":null})";
            default:
                e.bytes += bytes;
                return R"({"sessionUpdate":"terminal_output_chunk)" + head + R"(,"data":")" + base64(bytes) + "\"}";
        }
    }
    // CLIENT-MUST-55: each plan_update replaces that planId's plan, whatever the type.
    const std::string id = "p" + std::to_string(g.pick(2));
    RefEntity& e = ref.entity("plan", id);
    e.plan = g.plan(id);
    std::string update = R"({"sessionUpdate":"plan_update","plan":)" + e.plan;
    if (g.pick(3) == 0) update += R"(,"_meta":{"a":1})";  // not stored
    return update + "}";
}

}  // namespace

TEST_CASE("session random: interleaved chunks, upserts, patches and nulls agree with a reference model") {
    // CLIENT-MUST-49, -50, -51, -52, -53, -54, -55, -64
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
                                 << "\nupdates:\n"
                                 << history);
                }
                ++compared;
            }
        }
    }
    CHECK(compared == static_cast<int>(sequences) * 10);
}
