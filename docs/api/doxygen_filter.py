#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Doxygen input filter: libacp's public headers document each declaration with the plain
comment above it (`/* ... */` in acp.h, `// ...` in the C++ headers) and each field with
the comment after it; this turns those into Doxygen comments (`/** */`, `///`, `/**< */`,
`///<`) so the reference is made from the headers as they are. The licence line goes.
"""
import re
import sys

LEADING_C = re.compile(r"^(\s*)/\*(?![*!])")
TRAILING_C = re.compile(r"(\S.*?[;,{])(\s*)/\*(?![*!<])")
LEADING_CPP = re.compile(r"^(\s*)//(?![/!])")
TRAILING_CPP = re.compile(r"(\S.*?[;,{])(\s*)//(?![/!<])")


def convert(line):
    if "SPDX-License-Identifier" in line:
        return "\n"
    if LEADING_C.match(line):
        return LEADING_C.sub(r"\1/**", line, count=1)
    if LEADING_CPP.match(line):
        return LEADING_CPP.sub(r"\1///", line, count=1)
    line = TRAILING_C.sub(r"\1\2/**<", line, count=1)
    return TRAILING_CPP.sub(r"\1\2///<", line, count=1)


with open(sys.argv[1], encoding="utf-8") as f:
    sys.stdout.write("".join(convert(line) for line in f))
