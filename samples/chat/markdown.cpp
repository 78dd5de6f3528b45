// SPDX-License-Identifier: Apache-2.0
#include "markdown.hpp"

#include <md4c.h>

#include <array>
#include <vector>

namespace chat {

namespace {

// A line longer than this is not held back whole: an agent sending megabytes without a
// newline must neither grow our memory nor keep the screen empty.
constexpr std::size_t kMaxHeldBytes = 64 * 1024;

// The SGR state while one line renders: spans nest, so the attributes are counted and the
// whole set is sent again at each change.
struct LineRenderer {
    bool color = false;
    std::string out;
    int bold = 0, italic = 0, underline = 0, code = 0, strike = 0, dim = 0, heading = 0;
    std::vector<unsigned> ordered;  // the next number of each open ordered list (0 = bullets)
    bool in_link = false;
    std::string link, link_text;  // the open link's target and text

    void style() {
        if (!color) return;
        std::string sgr = "\x1b[0";
        if (bold || heading) sgr += ";1";
        if (dim) sgr += ";2";
        if (italic) sgr += ";3";
        if (underline) sgr += ";4";
        if (strike) sgr += ";9";
        if (code)
            sgr += ";36";
        else if (heading)
            sgr += ";35";
        out += sgr + "m";
    }
    void text(std::string_view t) { out.append(t.data(), t.size()); }

    static int enter_block(MD_BLOCKTYPE type, void* detail, void* data) {
        auto& r = *static_cast<LineRenderer*>(data);
        switch (type) {
            case MD_BLOCK_H:
                r.heading = 1;
                r.style();
                // Without colours a heading keeps its marks: nothing else would set it apart.
                if (!r.color) r.text(std::string(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level, '#') + " ");
                break;
            case MD_BLOCK_QUOTE:
                ++r.dim;
                r.style();
                r.text("| ");
                break;
            case MD_BLOCK_UL: r.ordered.push_back(0); break;
            case MD_BLOCK_OL: r.ordered.push_back(static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start); break;
            case MD_BLOCK_LI:
                if (!r.ordered.empty() && r.ordered.back() != 0) {
                    r.text(std::to_string(r.ordered.back()++) + ". ");
                } else {
                    r.text("\xe2\x80\xa2 ");  // a bullet
                }
                break;
            case MD_BLOCK_HR:
                ++r.dim;
                r.style();
                r.text(
                    "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80");
                --r.dim;
                r.style();
                break;
            case MD_BLOCK_CODE:
                ++r.code;
                r.style();
                break;
            default: break;
        }
        return 0;
    }
    static int leave_block(MD_BLOCKTYPE type, void*, void* data) {
        auto& r = *static_cast<LineRenderer*>(data);
        switch (type) {
            case MD_BLOCK_H:
                r.heading = 0;
                r.style();
                break;
            case MD_BLOCK_QUOTE:
                --r.dim;
                r.style();
                break;
            case MD_BLOCK_UL:
            case MD_BLOCK_OL: r.ordered.pop_back(); break;
            case MD_BLOCK_CODE:
                --r.code;
                r.style();
                break;
            default: break;
        }
        return 0;
    }
    static int enter_span(MD_SPANTYPE type, void* detail, void* data) {
        auto& r = *static_cast<LineRenderer*>(data);
        switch (type) {
            case MD_SPAN_EM: ++r.italic; break;
            case MD_SPAN_STRONG: ++r.bold; break;
            case MD_SPAN_CODE: ++r.code; break;
            case MD_SPAN_DEL: ++r.strike; break;
            case MD_SPAN_U: ++r.underline; break;
            case MD_SPAN_A: {
                const MD_ATTRIBUTE& href = static_cast<MD_SPAN_A_DETAIL*>(detail)->href;
                r.link.assign(href.text, href.size);
                r.link_text.clear();
                r.in_link = true;
                ++r.underline;
                break;
            }
            default: return 0;
        }
        r.style();
        return 0;
    }
    static int leave_span(MD_SPANTYPE type, void*, void* data) {
        auto& r = *static_cast<LineRenderer*>(data);
        switch (type) {
            case MD_SPAN_EM: --r.italic; break;
            case MD_SPAN_STRONG: --r.bold; break;
            case MD_SPAN_CODE: --r.code; break;
            case MD_SPAN_DEL: --r.strike; break;
            case MD_SPAN_U: --r.underline; break;
            case MD_SPAN_A: {
                --r.underline;
                r.style();
                // The target is shown unless the text already is it (an autolink).
                r.in_link = false;
                if (!r.link.empty() && r.link != r.link_text && "mailto:" + r.link_text != r.link) {
                    ++r.dim;
                    r.style();
                    r.text(" (" + r.link + ")");
                    --r.dim;
                }
                break;
            }
            default: return 0;
        }
        r.style();
        return 0;
    }
    static int on_text(MD_TEXTTYPE type, const MD_CHAR* text, MD_SIZE size, void* data) {
        auto& r = *static_cast<LineRenderer*>(data);
        const std::string_view t(text, size);
        if (r.in_link) r.link_text.append(t.data(), t.size());
        switch (type) {
            case MD_TEXT_NULLCHAR: r.text("\xef\xbf\xbd"); break;
            case MD_TEXT_BR:
            case MD_TEXT_SOFTBR: r.text(" "); break;
            case MD_TEXT_ENTITY:
                if (t == "&amp;")
                    r.text("&");
                else if (t == "&lt;")
                    r.text("<");
                else if (t == "&gt;")
                    r.text(">");
                else if (t == "&quot;")
                    r.text("\"");
                else if (t == "&nbsp;")
                    r.text(" ");
                else
                    r.text(t);
                break;
            default: r.text(t); break;
        }
        return 0;
    }
};

bool opens_fence(std::string_view line, std::string& fence) {
    std::size_t indent = 0;
    while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
    if (indent > 3 || indent >= line.size() || (line[indent] != '`' && line[indent] != '~')) return false;
    std::size_t n = indent;
    while (n < line.size() && line[n] == line[indent]) ++n;
    if (n - indent < 3) return false;
    // A backtick fence's info string has no backtick.
    if (line[indent] == '`' && line.find('`', n) != std::string_view::npos) return false;
    fence.assign(line.data() + indent, n - indent);
    return true;
}

bool closes_fence(std::string_view line, const std::string& fence) {
    std::size_t indent = 0;
    while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
    if (indent > 3) return false;
    std::size_t n = indent;
    while (n < line.size() && line[n] == fence[0]) ++n;
    if (n - indent < fence.size()) return false;
    return line.find_first_not_of(" \t", n) == std::string_view::npos;
}

// True when md4c could find nothing in the line: no character that opens a block at its
// start or a span anywhere (nor ':' of a URL autolink). Most lines of prose are like that,
// and printing them as they are keeps long replies cheap.
bool is_plain_text(std::string_view line) {
    static const auto special = [] {
        std::array<bool, 256> table{};
        for (unsigned char c : std::string_view("*_`[]<>&\\!~#|:=+-")) table[c] = true;
        return table;
    }();
    for (char c : line) {
        if (special[static_cast<unsigned char>(c)]) return false;
    }
    // "1. item" or "1) item": a numbered list item.
    std::size_t digits = 0;
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
    return !(digits > 0 && digits < line.size() && (line[digits] == '.' || line[digits] == ')'));
}

}  // namespace

std::string MarkdownStream::render_line(std::string_view line, bool color) {
    // Leading spaces are the agent's own layout (a nested list item): kept as they are,
    // and the rest is parsed, so a line indented four spaces is not taken for code.
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string_view::npos) return std::string(line);
    if (is_plain_text(line.substr(indent))) return std::string(line);
    LineRenderer renderer;
    renderer.color = color;
    renderer.out.assign(line.data(), indent);
    MD_PARSER parser{};
    parser.flags = MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEURLAUTOLINKS | MD_FLAG_NOINDENTEDCODEBLOCKS;
    parser.enter_block = &LineRenderer::enter_block;
    parser.leave_block = &LineRenderer::leave_block;
    parser.enter_span = &LineRenderer::enter_span;
    parser.leave_span = &LineRenderer::leave_span;
    parser.text = &LineRenderer::on_text;
    const std::string_view rest = line.substr(indent);
    if (md_parse(rest.data(), static_cast<MD_SIZE>(rest.size()), &parser, &renderer) != 0) return std::string(line);
    if (color && renderer.out.find('\x1b') != std::string::npos) renderer.out += "\x1b[0m";
    return renderer.out;
}

bool MarkdownStream::line(std::string_view text, std::string& out) {
    if (!fence_.empty()) {
        if (closes_fence(text, fence_)) {
            fence_.clear();
            return false;
        }
        out += color_ ? "  \x1b[36m" + std::string(text) + "\x1b[0m" : "  " + std::string(text);
        return true;
    }
    if (opens_fence(text, fence_)) return false;  // the code lines show indented and coloured instead
    out += render_line(text, color_);
    return true;
}

void MarkdownStream::feed(std::string_view text, std::string& out) {
    std::size_t from = 0;
    for (std::size_t nl; (nl = text.find('\n', from)) != std::string_view::npos; from = nl + 1) {
        bool shown = true;
        if (raw_rest_) {
            out.append(text.data() + from, nl - from);
            raw_rest_ = false;
        } else if (tail_.empty()) {
            shown = line(text.substr(from, nl - from), out);
        } else {
            tail_.append(text.data() + from, nl - from);
            shown = line(tail_, out);
            tail_.clear();
        }
        if (shown) out += '\n';
    }
    if (raw_rest_) {
        out.append(text.data() + from, text.size() - from);
        return;
    }
    tail_.append(text.data() + from, text.size() - from);
    if (tail_.size() > kMaxHeldBytes) {
        out += tail_;
        tail_.clear();
        raw_rest_ = true;
    }
}

void MarkdownStream::flush(std::string& out) {
    if (tail_.empty()) return;
    line(tail_, out);
    tail_.clear();
    raw_rest_ = true;  // the rest of this line comes after other output: as is
}

}  // namespace chat
