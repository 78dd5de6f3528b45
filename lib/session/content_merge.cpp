// SPDX-License-Identifier: Apache-2.0
#include "session/content_merge.hpp"

#include <rapidjson/document.h>

#include <string>
#include <utility>

#include "jsonrpc/json.hpp"

namespace acp::detail {

bool is_plain_text(const v2::ContentBlock& block) {
    const v2::TextContent* text = block.text();
    // Absent and null are the same for a content item's own fields (CLIENT-GUIDE 1.5).
    return text != nullptr && !text->annotations.has_value() && !text->_meta.has_value() && text->extra_fields.empty();
}

void append_block(std::vector<v2::ContentBlock>& content, const v2::ContentBlock& block) {
    if (is_plain_text(block)) {
        if (!content.empty() && is_plain_text(content.back())) {
            content.back().text()->text += block.text()->text;
            return;
        }
        // Stored in the canonical form: no null markers.
        content.push_back(v2::ContentBlock::make_text(v2::TextContent{block.text()->text, {}, {}, {}}));
        return;
    }
    content.push_back(block);
}

void append_text(std::vector<v2::ContentBlock>& content, std::string_view text) {
    if (!content.empty() && is_plain_text(content.back())) {
        content.back().text()->text.append(text);
        return;
    }
    content.push_back(v2::ContentBlock::make_text(v2::TextContent{std::string(text), {}, {}, {}}));
}

void assign_blocks(std::vector<v2::ContentBlock>& content, const std::vector<v2::ContentBlock>& blocks) {
    content.clear();
    for (const auto& block : blocks) append_block(content, block);
}

Status patch_meta(MetaMap& meta, const Nullable<RawJson>& patch) {
    if (patch.is_absent()) return {};
    if (patch.is_null()) {
        meta.clear();
        return {};
    }
    rapidjson::Document document;
    document.Parse(patch->text.data(), patch->text.size());
    if (document.HasParseError()) return Status(Errc::protocol_error, "_meta: not JSON");
    if (document.IsNull()) {
        meta.clear();
        return {};
    }
    if (!document.IsObject()) return Status(Errc::protocol_error, "_meta: expected object, left unchanged");
    for (auto member = document.MemberBegin(); member != document.MemberEnd(); ++member) {
        std::string key(member->name.GetString(), member->name.GetStringLength());
        if (member->value.IsNull()) {
            meta.erase(key);
        } else {
            meta.insert_or_assign(std::move(key), RawJson{to_json_text(member->value)});
        }
    }
    return {};
}

}  // namespace acp::detail
