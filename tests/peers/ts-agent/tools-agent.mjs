#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// libacp test peer: an ACP v2 agent on the official TypeScript SDK 2.4.0 that calls the
// tools of MCP servers the client provides over ACP ({type: "acp"} entries, mcp/message),
// with the SDK's own McpOverAcpCaller (dist/mcp/core.js). It advertises session.mcp.acp
// only, and the unstable session/fork (a fork's servers are the ones its request gives).
// Over stdin/stdout (NDJSON); logs on stderr; exits 0 when stdin closes.
//
//   node tools-agent.mjs [--v1]
//
//   --v1   speaks ACP v1 through the SDK's v1 unstable entry point: it advertises
//          mcpCapabilities.acp, streams id-less agent_message_chunk updates and ends the
//          turn in the session/prompt response.
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
        agentCapabilities: { mcpCapabilities: { acp: true } },
      }
    : {
        protocolVersion: 2,
        info: { name: "libacp-ts-tools-agent", version: "1.0.0" },
        capabilities: { session: { mcp: { acp: {} }, fork: {} } },
      },
);

function acpServers(params) {
  if (!v1) acp.assertSupportedMcpServers?.(params.mcpServers, { acp: {} });
  return (params.mcpServers ?? []).filter(acp.isMcpServerAcp).map((s) => ({ name: s.name, serverId: s.serverId }));
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
