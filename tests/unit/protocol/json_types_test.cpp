// SPDX-License-Identifier: Apache-2.0
// acp/json.hpp (RawJson, Nullable), the shape of the generated types, the generated
// method names, and a check that the generator covered every $defs entry of the schema.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

#include "acp/json.hpp"
#include "acp/v2/types.hpp"
#include "protocol/v2/codec.hpp"
#include "protocol/v2/methods.hpp"
#include "unit/protocol/codec_test_util.hpp"

using namespace acp::v2;

TEST_CASE("Nullable: absent by default, null on request, a value when given one") {
    acp::Nullable<std::string> absent;
    CHECK(absent.is_absent());
    CHECK_FALSE(absent.is_null());
    CHECK_FALSE(absent.has_value());

    auto null = acp::Nullable<std::string>::null();
    CHECK(null.is_null());
    CHECK_FALSE(null.is_absent());

    acp::Nullable<std::string> value = "title";
    REQUIRE(value.has_value());
    CHECK(*value == "title");
    CHECK(value->size() == 5);
    CHECK(value.value_or("x") == "title");
    CHECK(null.value_or("x") == "x");

    CHECK(absent != null);
    CHECK(null == acp::Nullable<std::string>::null());
    CHECK(value == acp::Nullable<std::string>(std::string("title")));
    CHECK(value != acp::Nullable<std::string>("other"));

    value.set_null();
    CHECK(value.is_null());
    value.reset();
    CHECK(value.is_absent());
    value.emplace() = "again";
    CHECK(*value == "again");
}

TEST_CASE("RawJson: equality compares the text") {
    CHECK(acp::RawJson{R"({"a":1})"} == acp::RawJson{R"({"a":1})"});
    CHECK(acp::RawJson{R"({"a":1})"} != acp::RawJson{R"({ "a": 1 })"});
}

TEST_CASE("open enums: named constants, any other value kept") {
    ToolKind kind = ToolKind::read;
    CHECK(kind == ToolKind::read);
    CHECK(kind == "read");
    CHECK(kind.is_known());
    ToolKind future = std::string("summon");
    CHECK_FALSE(future.is_known());
    CHECK(future != kind);
    CHECK(std::string(ToolKind::delete_) == "delete");
    CHECK(ErrorCode(ErrorCode::method_not_found).value == -32601);
    CHECK(ErrorCode(-1).is_known() == false);
}

TEST_CASE("tagged unions: factories, accessors, kind and tag") {
    auto text = ContentBlock::make_text(TextContent{"hi", {}, {}, {}});
    CHECK(text.kind() == ContentBlock::Kind::text);
    CHECK(text.tag() == "text");
    REQUIRE(text.text() != nullptr);
    CHECK(text.text()->text == "hi");
    CHECK(text.image() == nullptr);
    CHECK(text.unknown() == nullptr);

    // two variants sharing one payload type stay apart
    ContentChunk chunk{"m1", text, {}, {}};
    auto user = SessionUpdate::make_user_message_chunk(chunk);
    auto agent = SessionUpdate::make_agent_message_chunk(chunk);
    CHECK(user.kind() == SessionUpdate::Kind::user_message_chunk);
    CHECK(agent.kind() == SessionUpdate::Kind::agent_message_chunk);
    CHECK(user.agent_message_chunk() == nullptr);
    CHECK(user != agent);
    CHECK(codec_test::encode(agent) ==
          R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"hi"}})");

    auto unknown = ContentBlock::make_unknown("_acme_x", acp::RawJson{R"({"type":"_acme_x","v":1})"});
    CHECK(unknown.kind() == ContentBlock::Kind::unknown);
    CHECK(unknown.tag() == "_acme_x");
    CHECK(codec_test::encode(unknown) == R"({"type":"_acme_x","v":1})");
    // a raw payload without its tag gets the tag written first
    auto bare = ContentBlock::make_unknown("_acme_y", acp::RawJson{R"({"v":2})"});
    CHECK(codec_test::encode(bare) == R"({"type":"_acme_y","v":2})");
}

TEST_CASE("encoding builds the JSON of a value made in code") {
    ToolCallUpdate update;
    update.toolCallId = "c1";
    update.title = acp::Nullable<std::string>::null();
    update.kind = ToolKind(ToolKind::edit);
    update.rawInput = acp::RawJson{R"({"path":"/a"})"};
    update._meta = acp::RawJson{R"({"k":1})"};
    update.extra_fields.emplace_back("zz", acp::RawJson{"[1]"});
    CHECK(codec_test::encode(update) ==
          R"({"toolCallId":"c1","title":null,"kind":"edit","rawInput":{"path":"/a"},"_meta":{"k":1},"zz":[1]})");

    Cost cost{2.0, "EUR", {}, {}};
    CHECK(codec_test::encode(cost) == R"({"amount":2,"currency":"EUR"})");
    cost.amount = 0.125;
    CHECK(codec_test::encode(cost) == R"({"amount":0.125,"currency":"EUR"})");
}

TEST_CASE("method names come from meta.json") {
    CHECK(method::session_new == "session/new");
    CHECK(method::session_update == "session/update");
    CHECK(method::elicitation_create == "elicitation/create");
    CHECK(method::cancel_request == "$/cancel_request");
}

TEST_CASE("every $defs entry of the schema has a generated type") {
    std::ifstream file(ACP_V2_SCHEMA_PATH);
    REQUIRE(file.good());
    std::ostringstream contents;
    contents << file.rdbuf();
    const std::string text = contents.str();
    rapidjson::Document schema = codec_test::parse(text);
    REQUIRE(schema.HasMember("$defs"));
    std::set<std::string> in_schema;
    for (auto it = schema["$defs"].MemberBegin(); it != schema["$defs"].MemberEnd(); ++it) {
        in_schema.insert(it->name.GetString());
    }
    std::set<std::string> generated;
    for (std::string_view name : codec::schema_type_names) generated.insert(std::string(name));
    CHECK(in_schema.size() == 197);
    CHECK(generated == in_schema);
}
