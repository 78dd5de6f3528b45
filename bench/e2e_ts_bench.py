#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End to end against the official TypeScript SDK: libacp's C++ client and a client on the
TypeScript SDK 2.4.0 follow the same flood from the same agent process (ours,
acp_bench_flood_agent, spawned by each client), one "flood N" turn each, from the prompt to
the idle state. Per round and size: updates/s, peak RSS and CPU time per update of each
client process; reported as min / median / max of the per-round ratios, and the growth
of each client's time from the smallest size to the largest (linear = the size ratio).

    python3 bench/e2e_ts_bench.py [--build build/release] [--sizes 100000,1000000] [--rounds 3] [--pipe-bytes N]

--pipe-bytes N: the flood agent makes its stdout pipe hold N bytes (F_SETPIPE_SZ, at most
/proc/sys/fs/pipe-max-size) instead of Linux's 64 KiB, for both clients alike.

Needs node and tests/peers/ts-agent/node_modules (scripts/install-deps.sh installs both).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(command, size, pipe_bytes):
    # The agent builds the flood at startup, before the client's clock runs.
    env = dict(os.environ, ACP_FLOOD_PREPARE=str(size))
    if pipe_bytes:
        env["ACP_FLOOD_PIPE_BYTES"] = str(pipe_bytes)
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def spread(values):
    return "min %.2f, median %.2f, max %.2f" % (min(values), statistics.median(values), max(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build", "release"))
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pipe-bytes", type=int, default=0)
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    agent = os.path.join(build, "bench", "acp_bench_flood_agent")
    cpp = os.path.join(build, "bench", "acp_bench_flood_follow")
    node = shutil.which("node")
    sdk = os.path.join(HERE, "..", "tests", "peers", "ts-agent", "node_modules", "@agentclientprotocol", "sdk")
    for path in (agent, cpp, sdk, node or "node (not on PATH)"):
        if not os.path.exists(path):
            raise SystemExit("missing %s" % path)
    sizes = [int(size) for size in args.sizes.split(",")]
    seconds = {("cpp", n): [] for n in sizes}
    seconds.update({("ts", n): [] for n in sizes})
    for size in sizes:
        rate, rss, cpu = [], [], []
        for _ in range(args.rounds):
            c = run([cpp, agent, str(size)], size, args.pipe_bytes)
            t = run([node, os.path.join(HERE, "e2e_ts_client.mjs"), agent, str(size)], size, args.pipe_bytes)
            if c["bytes"] != t["bytes"]:
                raise SystemExit("C++ followed %d bytes, TypeScript %d" % (c["bytes"], t["bytes"]))
            seconds[("cpp", size)].append(c["seconds"])
            seconds[("ts", size)].append(t["seconds"])
            rate.append(t["seconds"] / c["seconds"])
            rss.append(c["peak_rss_kib"] / t["peak_rss_kib"])
            cpu.append(t["cpu"] / c["cpu"])
            print("%8d updates: libacp %9.0f upd/s, %6.0f ns CPU/upd, RSS %5.1f MiB | TypeScript SDK %8.0f upd/s, "
                  "%6.0f ns CPU/upd, RSS %6.1f MiB | rate x%.1f" %
                  (size, size / c["seconds"], c["cpu"] * 1e9 / size, c["peak_rss_kib"] / 1024, size / t["seconds"],
                   t["cpu"] * 1e9 / size, t["peak_rss_kib"] / 1024, rate[-1]), flush=True)
        print("%8d updates, %d rounds: libacp rate / TypeScript rate %s (aim >= 50); libacp RSS / TypeScript RSS %s "
              "(aim <= 0.05); TypeScript CPU / libacp CPU %s" % (size, args.rounds, spread(rate), spread(rss), spread(cpu)))
    if len(sizes) > 1:
        small, large = sizes[0], sizes[-1]
        for who in ("cpp", "ts"):
            growth = statistics.median(seconds[(who, large)]) / statistics.median(seconds[(who, small)])
            print("%s: median time at %d / at %d updates = %.1f (linear = %.1f)" %
                  ("libacp" if who == "cpp" else "TypeScript SDK", large, small, growth, large / small))
    print("load %s" % " ".join("%.2f" % v for v in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
