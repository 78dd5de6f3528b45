// SPDX-License-Identifier: Apache-2.0
// The unstable schema's additions to stable values (internal): read an `<Type>Additions`
// (acp/v2/unstable.hpp) out of a stable struct's extra_fields or a stable union's unknown
// variant, and write an unstable value as the RawJson a stable struct carries.
//
//   v2::unstable::SessionCapabilitiesAdditions added;
//   if (decode_additions(session.extra_fields, added) && added.fork.has_value()) offer_fork();
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>

#include "acp/json.hpp"
#include "acp/status.hpp"
#include "acp/v2/unstable.hpp"
#include "protocol/v2/unstable_codec.hpp"

namespace acp::detail {

// extra_fields as one JSON object (members that are not JSON are left out).
void extra_fields_object(const v2::ExtraFields& extra, rapidjson::Document& out);
// A union's unknown variant as the object it came from: the tag put back in front.
Status unknown_variant_object(std::string_view discriminator, std::string_view tag, const RawJson& raw,
                              rapidjson::Document& out);

template <class Additions>
Status decode_additions(const v2::ExtraFields& extra, Additions& out) {
    rapidjson::Document object;
    extra_fields_object(extra, object);
    return v2::unstable::codec::decode(object, out);
}

// The variant a stable union kept as unknown (tag, raw), as the union of the added variants.
template <class Additions>
Status decode_variant(std::string_view tag, const RawJson& raw, Additions& out) {
    rapidjson::Document object;
    if (Status s = unknown_variant_object(Additions::discriminator, tag, raw, object); !s) return s;
    return v2::unstable::codec::decode(object, out);
}

template <class T>
RawJson encode_raw(const T& value) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    v2::unstable::codec::encode(writer, value);
    return RawJson{std::string(buffer.GetString(), buffer.GetSize())};
}

}  // namespace acp::detail
