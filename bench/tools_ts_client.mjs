// SPDX-License-Identifier: Apache-2.0
// The baseline of acp_bench_carriers' MCP-over-ACP pair: a client on the official
// TypeScript SDK 2.4.0 offering an `echo` tool with the SDK's own McpOverAcpProvider to
// tests/peers/ts-agent/tools-agent.mjs, whose SDK McpOverAcpCaller calls it N times in one
// turn. Prints {"perSecond": calls per second, prompt -> end of turn}.
//
//   node bench/tools_ts_client.mjs N
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const peer = new URL("../tests/peers/ts-agent/", import.meta.url);
const sdk = await import(new URL("node_modules/@agentclientprotocol/sdk/dist/v2/unstable/acp.js", peer));
const count = Number(process.argv[2] ?? "2000");
const agent = spawn(process.execPath, [new URL("tools-agent.mjs", peer).pathname], { stdio: ["pipe", "pipe", "inherit"] });
const stream = sdk.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const provider = new sdk.McpOverAcpProvider();

const echo = ({ method, params }) => {
  if (method === "tools/call") return { result: { content: [{ type: "text", text: JSON.stringify(params.arguments ?? {}) }] } };
  if (method === "tools/list") return { result: { tools: [{ name: "echo", inputSchema: { type: "object" } }] } };
  return { error: { code: -32601, message: "Method not found" } };
};

let result;
await sdk
  .client({ name: "tools-ts-bench" })
  .onRequest(sdk.methods.client.mcp.message, provider.handleRequest)
  .connectWith(stream, async (cx) => {
    await cx.request("initialize", { protocolVersion: 2, info: { name: "tools-ts-bench", version: "1.0" }, capabilities: {} });
    const server = provider.registerServer(cx, { name: "bench", handler: echo });
    const session = await cx.buildSession({ cwd: "/tmp", mcpServers: [server.declaration] }).start();
    const script = Array.from({ length: count }, (_, i) => `call echo {"i":${i}}`).join("\n");
    let answers = 0;
    const started = process.hrtime.bigint();
    const answered = session.prompt(script);
    for (;;) {
      const message = await session.nextUpdate();
      if (message.kind === "stop") break;
      if (message.update.sessionUpdate === "agent_message_chunk" && message.update.content.text.includes('"result"')) ++answers;
    }
    await answered;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (answers !== count) throw new Error(`${answers} answers of ${count}`);
    result = { perSecond: count / seconds };
    session.dispose();
  });
agent.stdin.end();
console.log(JSON.stringify(result));
process.exit(0);
