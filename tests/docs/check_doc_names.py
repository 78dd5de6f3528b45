#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every path and public name the documentation mentions exists (issue 28).

Reads README.md, every other tracked README.md and docs/*.md, and checks what their code
spans and links name:
- repository paths (lib/..., docs/x.md, examples/c/prompt.c, a link's target): the file
  or directory exists;
- C API names (acp_*, ACP_*): declared in include/acp/ or used by the build (CMake
  options, environment variables the code reads);
- C++ names (acp::Client::spawn, acp::v2::NewSessionRequest): each part is declared in
  the public headers (outside comments);
- Python names (libacp.Client.prompt): each part is defined in bindings/python/libacp;
- Lua modules (require("acp.nvim")): the module file exists under bindings/lua.
Prints each name that does not exist with where it is mentioned; exits 1 if any.

    check_doc_names.py SOURCE_DIR
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
# Paths of an installed tree (under the prefix), not of the repository.
INSTALLED = {"lib/x86_64-linux-gnu", "lib/python3/dist-packages"}
TOP_DIRS = ("lib", "include", "docs", "examples", "samples", "bindings", "tests", "scripts", "cmake", "bench",
            "packaging", "schema", "abi")


def tracked(*patterns):
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", *patterns], check=True, capture_output=True, text=True)
    return [ROOT / line for line in out.stdout.splitlines() if (ROOT / line).is_file()]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def read_all(files, comments=True):
    texts = []
    for f in files:
        t = f.read_text(errors="replace")
        texts.append(t if comments else strip_comments(t))
    return "\n".join(texts)


docs = [f for f in tracked("*.md") if f.name == "README.md" and "node_modules" not in f.parts]
docs += sorted((ROOT / "docs").glob("*.md"))
public_headers = read_all(sorted((ROOT / "include" / "acp").rglob("*.h*")), comments=False)
# Where a C API name or an ACP_ setting may be defined: headers, the build, the code.
code = read_all(tracked("include/*", "lib/*", "cmake/*", "CMakeLists.txt", "*/CMakeLists.txt", "bindings/*",
                        "scripts/*", "samples/*", "bench/*", "tests/CMakeLists.txt", "tests/peers/*"))
# The layers' object libraries (cmake/AcpLayers.cmake names them acp_<layer>).
layer_targets = {"acp_" + d.name for d in (ROOT / "lib").iterdir() if d.is_dir()}
# C++ names: the public headers, and lib/ for what the docs say about the internals.
cpp_declarations = public_headers + read_all(sorted((ROOT / "lib").rglob("*.hpp")), comments=False)
# libacp.so, libacp.abixml: files, not Python names.
FILE_SUFFIXES = {"so", "a", "pc", "abixml", "txt", "map", "h"}
python = read_all(sorted((ROOT / "bindings" / "python" / "libacp").rglob("*.py")))
python_defined = set(re.findall(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", python, flags=re.M))
python_defined |= set(re.findall(r"^\s*(?:self\.)?(\w+)\s*(?::[^=\n]+)?=", python, flags=re.M))
python_defined |= {f.stem for f in (ROOT / "bindings" / "python" / "libacp").glob("*.py")}  # modules

problems = []


def problem(doc, line_no, what):
    problems.append(f"{doc.relative_to(ROOT)}:{line_no}: {what}")


def check_path(doc, line_no, path, relative_to_doc):
    path = path.split("#")[0].rstrip(".,:;)'\"")
    path = re.sub(r":\d+(-\d+)?$", "", path)
    if not path or any(c in path for c in "<>{}$|?") or "..." in path or path in INSTALLED:
        return
    bases = [ROOT, doc.parent] if relative_to_doc else [ROOT]
    # A pattern (lib/client/v1_adapter.*) names at least one file; a name without its
    # extension (tests/peers/sync_agent: the program) names its sources.
    if not any((base / path).exists() or any(base.glob(path + ("" if "*" in path else ".*"))) for base in bases):
        problem(doc, line_no, f"no such path: {path}")


def declared_cpp(name):
    if name in layer_targets or re.search(r"\b" + re.escape(name) + r"\b", code) and name.startswith("acp_"):
        return True  # a CMake target: acp::acp_static
    return re.search(r"\b(class|struct|enum class|enum|using|namespace)\s+" + re.escape(name) + r"\b",
                     cpp_declarations) or re.search(r"\b" + re.escape(name) + r"\s*(\(|<|\{|=|;|,)", cpp_declarations)


def check_span(doc, line_no, span):
    for word in re.findall(r"\b(?:acp|ACP)_[A-Za-z0-9_]+", span):
        if word.endswith("_") or word in layer_targets:
            continue  # a prefix (acp_client_*), or a layer's object library
        if not re.search(r"\b" + re.escape(word) + r"\b", code):
            problem(doc, line_no, f"no such C API name or setting: {word}")
    for name in re.findall(r"\bacp::((?:\w+::)*\w+)", span):
        for part in name.split("::"):
            if part in ("detail",) or not declared_cpp(part):
                problem(doc, line_no, f"no such C++ name: acp::{name} ({part})")
                break
    for name in re.findall(r"\blibacp((?:\.\w+)+)", span):
        parts = name.strip(".").split(".")
        if parts[0] in FILE_SUFFIXES:
            continue
        for part in parts:
            if part not in python_defined:
                problem(doc, line_no, f"no such Python name: libacp{name} ({part})")
                break
    for module in re.findall(r"require\s*\(?\s*[\"'](acp(?:\.\w+)*)[\"']", span):
        rel = module.replace(".", "/")
        if not any((ROOT / "bindings" / "lua" / base / (rel + ext)).exists()
                   for base in (".", "nvim/lua") for ext in (".lua", "/init.lua")):
            problem(doc, line_no, f"no such Lua module: {module}")
    for token in re.findall(r"(?<![\w/$.~-])[^\s`'\"(),;]+", span):
        if "/" in token and token.split("/")[0] in TOP_DIRS:
            check_path(doc, line_no, token, False)


for doc in docs:
    in_fence = False
    for line_no, line in enumerate(doc.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            check_span(doc, line_no, line)
            continue
        for span in re.findall(r"`([^`]+)`", line):
            check_span(doc, line_no, span)
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if not re.match(r"[a-z]+:", target) and not target.startswith("#"):
                check_path(doc, line_no, target, True)

for p in problems:
    print(p)
print(f"{len(docs)} documents checked, {len(problems)} names that do not exist")
sys.exit(1 if problems else 0)
