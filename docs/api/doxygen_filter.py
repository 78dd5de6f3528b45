#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Doxygen input filter: libacp's public headers document each declaration with the plain
comment above it (`/* ... */` in acp.h, `// ...` in the C++ headers) and each field with
the comment after it; this turns those into Doxygen comments (`/** */`, `///`, `/**< */`,
`///<`) so the reference is made from the headers as they are. The licence line goes.

The header's opening comment becomes its `\\file` documentation: without it Doxygen drops
every global of the file (all of acp.h) from the reference and never warns that one is
undocumented. A section ruler (`/* ---- events ---- */`) stays a plain comment; a ruler
that opens a longer comment loses its title, and the text documents what follows it.
Lines are never added or removed, so warnings name the header's own line numbers.
"""
import re
import sys

LEADING_C = re.compile(r"^(\s*)/\*(?![*!])")
TRAILING_C = re.compile(r"(\S.*?[;,{])(\s*)/\*(?![*!<])")
LEADING_CPP = re.compile(r"^(\s*)//(?![/!])")
TRAILING_CPP = re.compile(r"(\S.*?[;,{])(\s*)//(?![/!<])")
RULER = re.compile(r"^\s*/\* -{2,} .*?-{2,}\s*(\*/)?\s*$")
OPENING = re.compile(r"^(\s*)(/\*|//)\s*(\S+) \u2014 ")  # "/* acp/acp.h — what it is"
BLANK = re.compile(r"^\s*(\*|///?)\s*$")
EXAMPLE = re.compile(r"^(\s*(?:\*|//))(   \S)")  # a usage example's line, indented 3


def convert(line, opening):
    ruler = RULER.match(line)
    if ruler:
        return line if ruler.group(1) else "/**\n"
    if opening and OPENING.match(line):
        marker = "/**" if OPENING.match(line).group(2) == "/*" else "///"
        return OPENING.sub(r"\g<1>%s \\file \3 \\brief " % marker, line, count=1)
    if LEADING_C.match(line):
        return LEADING_C.sub(r"\1/** \\file" if opening else r"\1/**", line, count=1)
    if LEADING_CPP.match(line):
        return LEADING_CPP.sub(r"\1/// \\file" if opening else r"\1///", line, count=1)
    line = TRAILING_C.sub(r"\1\2/**<", line, count=1)
    return TRAILING_CPP.sub(r"\1\2///<", line, count=1)


def main(path):
    out = []
    opening = True  # until the first comment after the licence line
    example = False  # inside a usage example: a blank comment line, then lines indented 3
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "SPDX-License-Identifier" in line:
                out.append("\n")
                continue
            comment = line.lstrip().startswith(("/*", "//"))
            blank = out and BLANK.match(out[-1])
            if EXAMPLE.match(line) and (example or blank):
                example = True
                line = EXAMPLE.sub(r"\1  \2", line, count=1)  # Markdown's code block: 4 more
            else:
                example = False
            out.append(convert(line, opening and comment))
            opening = opening and not comment
    sys.stdout.write("".join(out))


main(sys.argv[1])
