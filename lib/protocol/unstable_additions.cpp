// SPDX-License-Identifier: Apache-2.0
#include "protocol/unstable_additions.hpp"

namespace acp::detail {

void extra_fields_object(const v2::ExtraFields& extra, rapidjson::Document& out) {
    out.SetObject();
    auto& alloc = out.GetAllocator();
    for (const auto& [key, raw] : extra) {
        rapidjson::Document member(&alloc);
        member.Parse(raw.text.data(), raw.text.size());
        if (member.HasParseError()) continue;
        rapidjson::Value name(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc);
        out.AddMember(name, rapidjson::Value(member, alloc), alloc);
    }
}

Status unknown_variant_object(std::string_view discriminator, std::string_view tag, const RawJson& raw,
                              rapidjson::Document& out) {
    out.Parse(raw.text.data(), raw.text.size());
    if (out.HasParseError() || !out.IsObject()) {
        return Status(Errc::protocol_error, "an unknown '" + std::string(tag) + "' variant is not a JSON object");
    }
    auto& alloc = out.GetAllocator();
    out.EraseMember(rapidjson::StringRef(discriminator.data(), discriminator.size()));
    out.AddMember(rapidjson::Value(discriminator.data(), static_cast<rapidjson::SizeType>(discriminator.size()), alloc),
                  rapidjson::Value(tag.data(), static_cast<rapidjson::SizeType>(tag.size()), alloc), alloc);
    return Status();
}

}  // namespace acp::detail
