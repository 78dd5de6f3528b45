// SPDX-License-Identifier: Apache-2.0
// The TypeScript side of bench/e2e_ts_bench.py: a client on the official TypeScript SDK
// 2.4.0 (the copy tests/peers/ts-agent installs) that spawns the flood agent, opens a
// session and follows one "flood N" turn, collecting the text of every chunk, then prints
// one JSON line like acp_bench_flood_follow:
//   {"updates", "seconds" (prompt -> idle), "cpu" (this process, that span), "bytes", "peak_rss_kib"}
//
//   node bench/e2e_ts_client.mjs AGENT N
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";

// Peak RSS of this process image, as the C++ follower measures it: VmHWM (maxRSS would
// include the RSS of the Python process that forked this one).
function peakRssKib() {
  const hwm = /VmHWM:\s*(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return hwm ? Number(hwm[1]) : process.resourceUsage().maxRSS;
}

const sdk = await import(new URL("../tests/peers/ts-agent/node_modules/@agentclientprotocol/sdk/dist/v2/stable/acp.js",
                                 import.meta.url));
const [agentPath, countText] = process.argv.slice(2);
const count = Number(countText);
const agent = spawn(agentPath, [], { stdio: ["pipe", "pipe", "inherit"] });
const stream = sdk.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

let result;
await sdk.client({ name: "e2e-ts-bench" }).connectWith(stream, async (cx) => {
  await cx.request("initialize", { protocolVersion: 2, info: { name: "e2e-ts-bench", version: "1.0" }, capabilities: {} });
  const session = await cx.buildSession("/tmp").start();
  const texts = [];
  let chunks = 0;
  const started = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  const answered = session.prompt(`flood ${count}`);
  for (;;) {
    const message = await session.nextUpdate();
    if (message.kind === "stop") break;
    const update = message.update;
    if (update.sessionUpdate === "agent_message_chunk" && update.content?.type === "text") {
      texts.push(update.content.text);
      ++chunks;
    }
  }
  await answered;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  if (chunks !== count) throw new Error(`followed ${chunks} chunks of ${count}`);
  result = {
    updates: count,
    seconds,
    cpu: (cpu.user + cpu.system) / 1e6,
    bytes: Buffer.byteLength(texts.join(""), "utf8"),
    peak_rss_kib: peakRssKib(),
  };
  session.dispose();
});
agent.stdin.end();
console.log(JSON.stringify(result));
process.exit(0);
