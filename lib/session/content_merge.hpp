// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the session reducer (internal): how message content is normalised and
// how an upsert's `_meta` patches the stored metadata.
#pragma once

#include <string_view>
#include <vector>

#include "acp/session.hpp"
#include "acp/status.hpp"
#include "acp/v2/types.hpp"

namespace acp::detail {

// A text block with nothing but text: such blocks merge with their plain neighbours.
bool is_plain_text(const v2::ContentBlock& block);

// Appends block to content; a plain text block after a plain text block extends it.
void append_block(std::vector<v2::ContentBlock>& content, const v2::ContentBlock& block);

// append_block() of a text block with nothing but text, from the text alone.
void append_text(std::vector<v2::ContentBlock>& content, std::string_view text);

// Replaces content with blocks, normalised as append_block() would build it.
void assign_blocks(std::vector<v2::ContentBlock>& content, const std::vector<v2::ContentBlock>& blocks);

// Applies an upsert's top-level `_meta` (CLIENT-GUIDE 1.5): absent = unchanged, null =
// drop all, object = per-key merge (null deletes a key). A non-object is refused.
Status patch_meta(MetaMap& meta, const Nullable<RawJson>& patch);

}  // namespace acp::detail
