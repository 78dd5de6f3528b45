#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// libacp test peer: an ACP v2 agent on the official TypeScript SDK 2.4.0 that calls the
// tools of MCP servers the client provides over ACP ({type: "acp"} entries, mcp/message),
// with the SDK's own McpOverAcpCaller (dist/mcp/core.js). It advertises session.mcp.acp
// only, and the unstable session/fork (a fork's servers are the ones its request gives).
// Over stdin/stdout (NDJSON); logs on stderr; exits 0 when stdin closes.
//
//   node tools-agent.mjs [--v1] [--mcp=acp|http|stdio]
//
//   --v1         speaks ACP v1 through the SDK's v1 unstable entry point: it advertises
//                mcpCapabilities.acp and sessionCapabilities.fork, streams id-less agent_message_chunk updates and ends
//                the turn in the session/prompt response.
//   --mcp=http   advertises session.mcp.http (or stdio) instead of acp and calls the
//                session's first server of that type with the official MCP TypeScript
//                SDK's client (@modelcontextprotocol/sdk): Streamable HTTP to its url with
//                its headers, or its command spawned with its args and env. The outcome
//                lines have the same shape, so a script's outcomes compare across transports.
//
// A prompt is a script of lines, each one MCP request to the session's first acp server:
//   list                      tools/list
//   call NAME [JSON]          tools/call NAME with the JSON arguments (default {})
//   progress NAME [JSON]      tools/call with a progressToken; progress notifications are counted
//   cancel NAME [JSON]        tools/call, aborted (outer $/cancel_request) 100 ms later
//   raw METHOD [JSON]         any inner method with those params
//   server SERVER_ID          later lines go to this serverId (unknown ids: see the outcome)
// The reply is one agent message per line: "LINE => OUTCOME" where OUTCOME is the inner
// outcome as JSON ({"result":..} or {"error":..}) or "outer CODE MESSAGE" when the
// mcp/message request itself failed; the turn then ends (end_turn).
const v1 = process.argv.includes("--v1");
const mcpTransport = (process.argv.find((a) => a.startsWith("--mcp=")) ?? "--mcp=acp").slice(6);
const acp = await import(v1 ? "@agentclientprotocol/sdk/unstable" : "@agentclientprotocol/sdk/experimental/v2/unstable");
import { Readable, Writable } from "node:stream";

const log = (...parts) => process.stderr.write(`ts-tools-agent: ${parts.join(" ")}\n`);
const caller = new acp.McpOverAcpCaller({ clientInfo: { name: "libacp-ts-tools-agent", version: "1.0.0" } });
const sessions = new Map(); // sessionId -> { servers: [{name, serverId}], counter }
let sessionCounter = 0;

const app = acp.agent({ name: "libacp-ts-tools-agent" });
const m = acp.methods.agent;

app.onNotification(m.mcp.message, caller.handleNotification);

app.onRequest(m.initialize, async () =>
  v1
    ? {
        protocolVersion: 1,
        agentInfo: { name: "libacp-ts-tools-agent", version: "1.0.0" },
        agentCapabilities: { mcpCapabilities: { acp: true }, sessionCapabilities: { fork: {} } },
      }
    : {
        protocolVersion: 2,
        info: { name: "libacp-ts-tools-agent", version: "1.0.0" },
        capabilities: { session: { mcp: { [mcpTransport]: {} }, fork: {} } },
      },
);

function acpServers(params) {
  if (mcpTransport !== "acp") {
    // An MCP SDK client per entry of the advertised transport (stdio entries carry no type).
    return (params.mcpServers ?? [])
      .filter((s) => (s.type ?? "stdio") === mcpTransport)
      .map((s) => ({ name: s.name, entry: s }));
  }
  if (!v1) acp.assertSupportedMcpServers?.(params.mcpServers, { acp: {} });
  return (params.mcpServers ?? []).filter(acp.isMcpServerAcp).map((s) => ({ name: s.name, serverId: s.serverId }));
}

// The MCP SDK's client for an http or stdio entry, connected once.
async function mcpClient(server) {
  if (server.client) return server.client;
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  let transport;
  if (mcpTransport === "http") {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const headers = Object.fromEntries((server.entry.headers ?? []).map((h) => [h.name, h.value]));
    transport = new StreamableHTTPClientTransport(new URL(server.entry.url), { requestInit: { headers } });
  } else {
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const env = Object.fromEntries((server.entry.env ?? []).map((e) => [e.name, e.value]));
    transport = new StdioClientTransport({ command: server.entry.command, args: server.entry.args ?? [], env, stderr: "inherit" });
  }
  server.client = new Client({ name: "libacp-ts-tools-agent", version: "1.0.0" });
  await server.client.connect(transport);
  return server.client;
}

// One script line through the MCP SDK's client, as {"result"} or {"error"} like the ACP caller's outcome.
async function runOverMcp(server, verb, head, json) {
  const client = await mcpClient(server);
  try {
    if (verb === "list") return JSON.stringify({ result: await client.listTools() });
    if (verb !== "call") return `unsupported over ${mcpTransport}: ${verb}`;
    return JSON.stringify({ result: await client.callTool({ name: head, arguments: json ?? {} }) });
  } catch (err) {
    if (typeof err.code !== "number") throw err;
    // McpError prefixes its message with "MCP error CODE: ".
    return JSON.stringify({ error: { code: err.code, message: String(err.message).replace(/^MCP error -?\d+: /, "") } });
  }
}

app.onRequest(m.session.new, async ({ params }) => {
  const sessionId = `tools-${++sessionCounter}`;
  sessions.set(sessionId, { servers: acpServers(params), counter: 0 });
  return { sessionId };
});

app.onRequest(m.session.resume, async ({ params }) => {
  const s = sessions.get(params.sessionId);
  if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
  s.servers = acpServers(params);
  return {};
});

app.onRequest(m.session.fork, async ({ params }) => {
  if (!sessions.has(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
  const sessionId = `tools-${++sessionCounter}`;
  sessions.set(sessionId, { servers: acpServers(params), counter: 0 });
  return { sessionId };
});

app.onRequest(m.session.close, async () => ({}));

app.onRequest(m.session.prompt, async ({ params, client }) => {
  const s = sessions.get(params.sessionId);
  if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
  const update = (u) => client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: u });
  const script = params.prompt.filter((b) => b.type === "text").map((b) => b.text).join("\n");
  if (v1) {
    // v1: the turn is the request; its chunks carry no ids and its end is the response.
    await runScript(s, script, update, client);
    return { stopReason: "end_turn" };
  }
  await update({ sessionUpdate: "state_update", state: "running" });
  const messageId = `u${++s.counter}`;
  await update({ sessionUpdate: "user_message", messageId, content: params.prompt });
  setTimeout(() => void runScript(s, script, update, client), 0);
  return { messageId };
});

async function runOne(s, line, client, state) {
  const [verb, ...rest] = line.trim().split(" ");
  const tail = rest.join(" ");
  if (verb === "server") {
    state.serverId = tail;
    return "ok";
  }
  if (mcpTransport !== "acp") {
    if (s.servers.length === 0) return `no ${mcpTransport} server`;
    const space = tail.indexOf(" ");
    return runOverMcp(s.servers[0], verb, space < 0 ? tail : tail.slice(0, space),
      space < 0 ? undefined : JSON.parse(tail.slice(space + 1)));
  }
  const serverId = state.serverId ?? s.servers[0]?.serverId;
  if (serverId === undefined) return "no acp server";
  let method = "tools/call";
  let inner;
  const options = {};
  const space = tail.indexOf(" ");
  const head = space < 0 ? tail : tail.slice(0, space);
  const json = space < 0 ? undefined : JSON.parse(tail.slice(space + 1));
  if (verb === "list") {
    method = "tools/list";
    inner = {};
  } else if (verb === "raw") {
    method = head;
    inner = json ?? {};
  } else {
    inner = { name: head, arguments: json ?? {} };
  }
  let notifications = 0;
  if (verb === "progress") {
    inner._meta = { progressToken: "p1" };
    options.onNotification = () => ++notifications;
  }
  if (verb === "cancel") {
    const controller = new AbortController();
    options.signal = controller.signal;
    setTimeout(() => controller.abort(), 100);
  }
  try {
    const outcome = await caller.request(client, serverId, method, inner, options);
    return JSON.stringify(outcome) + (verb === "progress" ? ` progress=${notifications}` : "");
  } catch (err) {
    return `outer ${err.code} ${err.message}`;
  }
}

async function runScript(s, script, update, client) {
  const state = {};
  for (const line of script.split("\n").filter((l) => l.trim() !== "")) {
    let outcome;
    try {
      outcome = await runOne(s, line, client, state);
    } catch (err) {
      outcome = `agent error ${err.message}`;
    }
    // One message per line: v1 chunks have no ids, so a line break separates them there.
    await update({
      sessionUpdate: "agent_message_chunk",
      ...(v1 ? {} : { messageId: `m${++s.counter}` }),
      content: { type: "text", text: v1 ? `${line} => ${outcome}\n` : `${line} => ${outcome}` },
    });
  }
  if (!v1) await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
}

const stdout = Writable.toWeb(process.stdout);
const stdin = Readable.toWeb(process.stdin);
const connection = app.connect(acp.ndJsonStream(stdout, stdin));
connection.closed.then(
  () => process.exit(0),
  (err) => {
    log(`connection failed: ${err?.message ?? err}`);
    process.exit(1);
  },
);
// The client closed stdin: nothing more can come.
process.stdin.on("end", () => process.exit(0));
log("ready");
