#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python binding following a flood, against the C++ client in the same run.

Each round spawns the flood agent (acp_bench_flood_agent) under the C++ client
(acp_bench_flood_follow: Client + SessionStore, appending each change's text) and under the
Python binding three ways, each appending the text every on_session_change carries:
"default" the README's way with no setting (observe_sessions(), on_session_change, the turn
only waited for: the binding leaves update events off, so what Python has not handled yet
coalesces), "off" with report_updates(False), and "events" with report_updates(True) (one
SESSION_UPDATE with its JSON per chunk besides each change: the default before issue 28).
Each times one "flood N" turn from the prompt to the end of the turn and checks it followed
every byte. Rounds alternate, so all meet the same load; the ratios to the C++ client of
each round are reported as min / median / max.

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


def follow_in_python(agent, updates, mode):
    """One round in this process (run as a child, so its peak RSS is its own)."""
    import libacp

    pieces = []
    with libacp.Client([agent]) as client:
        client.observe_sessions()
        if mode != "default":
            client.report_updates(mode == "events")
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
    parser.add_argument("--mode", default="default", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.follow:
        follow_in_python(args.follow, args.updates, args.mode)
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
    modes = ("default", "off", "events")
    cpp_rates, rates = [], {mode: [] for mode in modes}
    for _ in range(args.rounds):
        c = run([cpp, agent, str(args.updates)], args.updates)
        cpp_rates.append(args.updates / c["seconds"])
        line = "round: C++ %9.0f upd/s (%.2f s, RSS %d MiB)" % (cpp_rates[-1], c["seconds"], c["peak_rss_kib"] // 1024)
        for mode in modes:
            p = run(python + ["--mode", mode], args.updates, env)
            if p["bytes"] != c["bytes"]:
                raise SystemExit("Python (%s) followed %d bytes, C++ %d" % (mode, p["bytes"], c["bytes"]))
            rates[mode].append(args.updates / p["seconds"])
            line += "   %s %.2fx (%d events, RSS %d MiB)" % (mode, rates[mode][-1] / cpp_rates[-1], p["events"],
                                                          p["peak_rss_kib"] // 1024)
        print(line, flush=True)
    summarize("Python", args, c["bytes"], cpp_rates, rates)
    return 0


def summarize(binding, args, text_bytes, cpp_rates, rates):
    """The run's summary: the ratio of each mode's rate to the C++ client's, per round."""
    print("%d updates (%d bytes of text), %d rounds, load %s" %
          (args.updates, text_bytes, args.rounds, " ".join("%.2f" % v for v in os.getloadavg())))
    print("C++ client: median %.0f upd/s" % statistics.median(cpp_rates))
    for mode, mode_rates in rates.items():
        ratios = [r / c for r, c in zip(mode_rates, cpp_rates)]
        print("%s %-7s / C++ rate per round: min %.2f, median %.2f, max %.2f%s" %
              (binding, mode, min(ratios), statistics.median(ratios), max(ratios),
               " (aim >= 0.5)" if mode == "default" else ""))


if __name__ == "__main__":
    sys.exit(main())
