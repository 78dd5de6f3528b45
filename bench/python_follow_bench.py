#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python binding following a flood, against the C++ client in the same run.

Each round spawns the flood agent (acp_bench_flood_agent) twice: once under the C++ client
(acp_bench_flood_follow: Client + SessionStore, appending each change's text) and once
under the Python binding (libacp.Client, updates not reported, appending the text each
on_session_change carries, which coalesces what Python has not handled yet). Both time one
"flood N" turn from the prompt to the end of the turn and check they followed every byte.
Rounds alternate, so both meet the same load; the ratio of each round is reported as
min / median / max. Each round also runs the Python binding the old way (update events
on: one SESSION_UPDATE with its JSON per chunk, so nothing coalesces) for comparison.

    python3 bench/python_follow_bench.py [--build build/release] [--updates 200000] [--rounds 5]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def follow_in_python(agent, updates, report_updates):
    """One round in this process (run as a child, so its peak RSS is its own)."""
    import libacp

    pieces = []
    with libacp.Client([agent]) as client:
        if report_updates:
            client.observe_sessions()  # as before report_updates existed: an update event per chunk too
        else:
            client.report_updates(False)
        client.on_session_change = lambda change: pieces.append(change.appended) if change.appended else None
        client.initialize()
        session = client.new_session(cwd="/tmp")
        start, cpu_start = time.perf_counter(), time.process_time()
        stop_reason = session.prompt("flood %d" % updates).wait()
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if stop_reason != "end_turn":
        raise SystemExit("the flood turn ended with %r" % stop_reason)
    print(json.dumps({"updates": updates, "seconds": seconds, "cpu": cpu, "events": len(pieces),
                      "bytes": len("".join(pieces).encode("utf-8")),
                      "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


def run(command, updates, env=None):
    # The agent builds the flood at startup, before the client's clock runs.
    env = dict(env or os.environ, ACP_FLOOD_PREPARE=str(updates))
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build", "release"))
    parser.add_argument("--updates", type=int, default=200000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--follow", help=argparse.SUPPRESS)  # internal: one Python round with this agent
    parser.add_argument("--report-updates", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.follow:
        follow_in_python(args.follow, args.updates, args.report_updates)
        return 0
    build = os.path.abspath(args.build)
    agent = os.path.join(build, "bench", "acp_bench_flood_agent")
    cpp = os.path.join(build, "bench", "acp_bench_flood_follow")
    library = os.path.join(build, "libacp.so")
    for path in (agent, cpp, library):
        if not os.path.exists(path):
            raise SystemExit("missing %s: build the bench target of %s" % (path, build))
    env = dict(os.environ, ACP_LIBRARY=library,
               PYTHONPATH=os.pathsep.join([os.path.join(HERE, "..", "bindings", "python"),
                                           os.environ.get("PYTHONPATH", "")]))
    python = [sys.executable, os.path.abspath(__file__), "--follow", agent, "--updates", str(args.updates)]
    ratios, cpp_rates, py_rates, old_ratios = [], [], [], []
    for _ in range(args.rounds):
        c = run([cpp, agent, str(args.updates)], args.updates)
        p = run(python, args.updates, env)
        old = run(python + ["--report-updates"], args.updates, env)
        for followed in (p, old):
            if followed["bytes"] != c["bytes"]:
                raise SystemExit("Python followed %d bytes, C++ %d" % (followed["bytes"], c["bytes"]))
        cpp_rates.append(args.updates / c["seconds"])
        py_rates.append(args.updates / p["seconds"])
        ratios.append(py_rates[-1] / cpp_rates[-1])
        old_ratios.append(args.updates / old["seconds"] / cpp_rates[-1])
        print("round: C++ %9.0f upd/s (%.2f s, CPU %.2f s, RSS %d MiB)   Python %9.0f upd/s (%.2f s, CPU %.2f s, "
              "%d events, RSS %d MiB)   ratio %.2f" %
              (cpp_rates[-1], c["seconds"], c["cpu"], c["peak_rss_kib"] // 1024, py_rates[-1], p["seconds"], p["cpu"],
               p["events"], p["peak_rss_kib"] // 1024, ratios[-1]), flush=True)
        print("       Python with update events on (one event per chunk, JSON each): %9.0f upd/s, ratio %.2f" %
              (args.updates / old["seconds"], old_ratios[-1]), flush=True)
    print("%d updates (%d bytes of text), %d rounds, load %s" %
          (args.updates, c["bytes"], args.rounds, " ".join("%.2f" % v for v in os.getloadavg())))
    print("C++ client: median %.0f upd/s; Python binding: median %.0f upd/s" %
          (statistics.median(cpp_rates), statistics.median(py_rates)))
    print("Python / C++ rate per round: min %.2f, median %.2f, max %.2f (aim >= 0.5)" %
          (min(ratios), statistics.median(ratios), max(ratios)))
    print("the same with update events on:  min %.2f, median %.2f, max %.2f" %
          (min(old_ratios), statistics.median(old_ratios), max(old_ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
