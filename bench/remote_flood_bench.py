#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The flood over each transport against stdio, in the same run: libacp's C++ client
(acp_bench_flood_follow) follows one "flood N" turn of the same agent, the TypeScript-SDK
peer, once spawned over stdio (tests/peers/ts-agent/agent.mjs) and once served by the
SDK's own server side (server.mjs) over WebSocket and over Streamable HTTP. Per round:
updates/s from prompt to idle and the client's CPU time per update; reported as min /
median / max of the per-round ratio of each network transport's figure to stdio's. The
agent (node), not the client, sets the pace: the rate is what a user sees, the CPU per
update what the transport costs the client.

    python3 bench/remote_flood_bench.py [--build build/dev] [--updates 100000] [--rounds 3]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.join(HERE, "..", "tests", "peers", "ts-agent")


def follow(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def spread(values):
    return "min %.2f, median %.2f, max %.2f" % (min(values), statistics.median(values), max(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build", "dev"))
    parser.add_argument("--updates", type=int, default=100000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cpp = os.path.join(os.path.abspath(args.build), "bench", "acp_bench_flood_follow")
    node = shutil.which("node")
    for path in (cpp, os.path.join(PEER, "node_modules"), node or "node (not on PATH)"):
        if not os.path.exists(path):
            raise SystemExit("missing %s" % path)
    n = str(args.updates)
    rates = {"stdio": [], "ws": [], "http": []}
    cpu = {"stdio": [], "ws": [], "http": []}  # the client's CPU seconds per update
    for _ in range(args.rounds):
        server = subprocess.Popen([node, os.path.join(PEER, "server.mjs"), "--port=0"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            urls = json.loads(server.stdout.readline())
            results = {
                "stdio": follow([cpp, node, n, os.path.join(PEER, "agent.mjs")]),
                "ws": follow([cpp, urls["ws"], n]),
                "http": follow([cpp, urls["http"], n]),
            }
        finally:
            server.terminate()
            server.wait()
        for name, result in results.items():
            if result["bytes"] != results["stdio"]["bytes"]:
                raise SystemExit("%s followed %d bytes, stdio %d" % (name, result["bytes"], results["stdio"]["bytes"]))
            rates[name].append(result["updates"] / result["seconds"])
            cpu[name].append(result["cpu"] / result["updates"])
    print("flood of %s updates, %d rounds; load %s" % (n, args.rounds, open("/proc/loadavg").read().split()[0]))
    print("stdio: %s updates/s; client CPU %.2f us/update (median)"
          % (spread(rates["stdio"]), statistics.median(cpu["stdio"]) * 1e6))
    for name in ("ws", "http"):
        ratios = [t / s for t, s in zip(rates[name], rates["stdio"])]
        cpu_ratios = [t / s for t, s in zip(cpu[name], cpu["stdio"])]
        print("%-5s %s updates/s; rate / stdio: %s; client CPU per update / stdio: %s"
              % (name + ":", spread(rates[name]), spread(ratios), spread(cpu_ratios)))


if __name__ == "__main__":
    main()
