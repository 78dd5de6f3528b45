#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Lua binding following a flood, against the C++ client in the same run.

Each round spawns the flood agent (acp_bench_flood_agent) under the C++ client
(acp_bench_flood_follow) and under the Lua binding (bench/lua_follow.lua in luajit) two
ways, each appending the text every "change" carries: "default" the README's way (a
"change" handler only: the binding asks for no update events, so what Lua has not handled
yet coalesces) and "events" (an "update" handler as well: one decoded session/update per
chunk, the default before issue 28). Rounds alternate; the ratios to the C++ client of
each round are reported as min / median / max.

    python3 bench/lua_follow_bench.py [--build build/release] [--updates 200000] [--rounds 5]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from python_follow_bench import run, summarize  # noqa: E402  (the same agent preparation and report)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build", "release"))
    parser.add_argument("--updates", type=int, default=200000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--luajit", default="luajit")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    agent = os.path.join(build, "bench", "acp_bench_flood_agent")
    cpp = os.path.join(build, "bench", "acp_bench_flood_follow")
    library = os.path.join(build, "libacp.so")
    cdef = os.path.join(build, "generated", "acp", "acp_cdef.h")
    for path in (agent, cpp, library, cdef):
        if not os.path.exists(path):
            raise SystemExit("missing %s: build the bench target of %s" % (path, build))
    env = dict(os.environ, ACP_LIBRARY=library, ACP_CDEF=cdef,
               LUA_PATH=os.path.join(HERE, "..", "bindings", "lua", "?.lua") + ";;")
    lua = [args.luajit, os.path.join(HERE, "lua_follow.lua"), agent, str(args.updates)]
    modes = ("default", "events")
    cpp_rates, rates = [], {mode: [] for mode in modes}
    for _ in range(args.rounds):
        c = run([cpp, agent, str(args.updates)], args.updates)
        cpp_rates.append(args.updates / c["seconds"])
        line = "round: C++ %9.0f upd/s (%.2f s)" % (cpp_rates[-1], c["seconds"])
        for mode in modes:
            result = run(lua + [mode], args.updates, env)
            if result["bytes"] != c["bytes"]:
                raise SystemExit("Lua (%s) followed %d bytes, C++ %d" % (mode, result["bytes"], c["bytes"]))
            rates[mode].append(args.updates / result["seconds"])
            line += "   %s %.2fx (%d changes, %d update events)" % (
                mode, rates[mode][-1] / cpp_rates[-1], result["events"], result["update_events"])
        print(line, flush=True)
    summarize("Lua", args, c["bytes"], cpp_rates, rates)
    return 0


if __name__ == "__main__":
    sys.exit(main())
