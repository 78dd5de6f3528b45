// SPDX-License-Identifier: Apache-2.0
// Self test of the peer agent and the validator: `node --test selftest.mjs`.
//
// Acts as a deliberately minimal client that writes raw JSON lines (not the SDK's
// client class), so what is checked is the agent's wire behaviour as the C++ client
// will see it.

import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const here = dirname(fileURLToPath(import.meta.url));
const AGENT = join(here, "agent.mjs");
const VALIDATE = join(here, "validate.mjs");
const SERVER = join(here, "server.mjs");
const BRIDGE = join(here, "bridge.mjs");
const MAKE_CERT = join(here, "make-cert.sh");
const CWD = "/tmp/acp-peer-selftest";
const TIMEOUT_MS = 30_000;  // a hang still fails; a loaded CI machine does not

const workDir = mkdtempSync(join(tmpdir(), "ts-agent-selftest-"));
process.on("exit", () => rmSync(workDir, { recursive: true, force: true }));

// Children a failed test left running would keep the runner alive: end them at the end.
const children = new Set();
function track(child) {
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}
after(() => {
  for (const child of children) child.kill("SIGKILL");
});

// Speaks JSON lines to a child: agent.mjs itself, or bridge.mjs, which passes them over
// the SDK's own HTTP / WebSocket client transports to a server.mjs.
class RawClient {
  constructor(args = [], env = {}, script = AGENT) {
    this.child = track(spawn(process.execPath, [script, ...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } }));
    this.stderr = "";
    this.child.stderr.on("data", (d) => (this.stderr += d));
    this.inbox = [];
    this.wakeups = [];
    this.nextId = 0;
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      this.inbox.push(JSON.parse(line));
      for (const wake of this.wakeups.splice(0)) wake();
    });
  }

  send(msg) {
    this.child.stdin.write(JSON.stringify(msg) + "\n");
  }

  request(method, params) {
    const id = this.nextId++;
    this.send({ jsonrpc: "2.0", id, method, params });
    return id;
  }

  notify(method, params) {
    this.send({ jsonrpc: "2.0", method, params });
  }

  /** Removes and returns every message up to and including the first one matching `pred`. */
  async until(pred, what = "message") {
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      const i = this.inbox.findIndex(pred);
      if (i >= 0) return this.inbox.splice(0, i + 1);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wakeups.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async call(method, params) {
    const id = this.request(method, params);
    const msgs = await this.until((m) => m.id === id && !m.method, `response to ${method}`);
    return { response: msgs.at(-1), before: msgs.slice(0, -1) };
  }

  untilIdle(sessionId) {
    return this.until(
      (m) => m.method === "session/update" && m.params.sessionId === sessionId && m.params.update.sessionUpdate === "state_update" && m.params.update.state === "idle",
      "idle state_update",
    );
  }

  async initialize(capabilities = { elicitation: { form: {}, url: {} } }) {
    const { response } = await this.call("initialize", { protocolVersion: 2, info: { name: "selftest", version: "0" }, capabilities });
    return response;
  }

  async close() {
    this.child.stdin.end();
    return this.exited;
  }
}

const updatesOf = (msgs) => msgs.filter((m) => m.method === "session/update").map((m) => m.params.update);
const kinds = (updates) => updates.map((u) => (u.sessionUpdate === "state_update" ? `state_update:${u.state}` : u.sessionUpdate));
const prompt = (text) => [{ type: "text", text }];

const TOOL_TURN = [
  "agent_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call_update",
  "tool_call_update",
  "tool_call_content_chunk",
  "terminal_update",
  "terminal_output_chunk",
  "terminal_output_chunk",
  "terminal_update",
  "tool_call_update",
  "plan_update",
  "agent_message",
  "usage_update",
  "session_info_update",
  "state_update:idle",
];

test("conversation: initialize, session/new, tool turn, permission, resume with replay, validation", async (t) => {
  const recordFile = join(workDir, "main.jsonl");
  const c = new RawClient([`--record=${recordFile}`]);
  const live = []; // conversation updates as sent live, for comparison with the replay

  await t.test("initialize", async () => {
    const r = await c.initialize();
    assert.equal(r.result.protocolVersion, 2);
    assert.equal(r.result.info.name, "libacp-ts-peer");
    assert.deepEqual(r.result.capabilities.session, {
      prompt: { image: {}, audio: {}, embeddedContext: {} },
      mcp: { stdio: {}, http: {} },
      delete: {},
      additionalDirectories: {},
    });
    assert.equal(r.result.authMethods, undefined);
  });

  await t.test("session/new", async () => {
    const { response } = await c.call("session/new", { cwd: CWD, mcpServers: [] });
    assert.equal(response.result.sessionId, "sess-1");
    assert.deepEqual(response.result.configOptions.map((o) => [o.configId, o.type, o.currentValue]), [
      ["model", "select", "model-a"],
      ["fast", "boolean", false],
    ]);
    assert.deepEqual(response.result.availableCommands.map((c) => c.name), ["web", "clear"]);
  });

  await t.test("tool prompt produces the documented update sequence", async () => {
    const { response, before } = await c.call("session/prompt", { sessionId: "sess-1", prompt: prompt("tool") });
    assert.deepEqual(response.result, { messageId: "u1" });
    assert.deepEqual(kinds(updatesOf(before)), ["state_update:running", "user_message"]);
    assert.equal(updatesOf(before)[1].messageId, "u1");
    const turn = updatesOf(await c.untilIdle("sess-1"));
    assert.deepEqual(kinds(turn), TOOL_TURN);
    assert.equal(turn.at(-1).stopReason, "end_turn");
    const toolStates = turn.filter((u) => u.sessionUpdate === "tool_call_update").map((u) => u.status);
    assert.deepEqual(toolStates, ["pending", "in_progress", "completed"]);
    assert.deepEqual(turn[4].capabilities, { cancel: {} });
    assert.equal(turn[4].content[0].type, "diff");
    assert.equal(turn[10].capabilities, null);
    // The output chunks split a UTF-8 sequence: each alone is not valid UTF-8.
    const chunks = turn.filter((u) => u.sessionUpdate === "terminal_output_chunk").map((u) => Buffer.from(u.data, "base64"));
    assert.throws(() => new TextDecoder("utf-8", { fatal: true }).decode(chunks[0]));
    assert.equal(Buffer.concat(chunks).toString("utf8"), "build: \u2713 ok\r\n");
    live.push(updatesOf(before)[1], ...turn.slice(0, -1));
  });

  await t.test("permission round trip", async () => {
    const { response, before } = await c.call("session/prompt", { sessionId: "sess-1", prompt: prompt("permission") });
    assert.deepEqual(response.result, { messageId: "u2" });
    live.push(updatesOf(before)[1]);
    const msgs = await c.until((m) => m.method === "session/request_permission", "permission request");
    const req = msgs.at(-1);
    assert.equal(req.params.subject.type, "tool_call");
    assert.equal(req.params.subject.toolCall.toolCallId, "tc2");
    assert.deepEqual(req.params.options.map((o) => o.optionId), ["allow-once", "allow-always", "reject-once"]);
    const early = updatesOf(msgs);
    assert.deepEqual(kinds(early), ["agent_message_chunk", "state_update:requires_action"]);
    c.send({ jsonrpc: "2.0", id: req.id, result: { outcome: { outcome: "selected", optionId: "allow-once" } } });
    const rest = updatesOf(await c.untilIdle("sess-1"));
    assert.deepEqual(kinds(rest), ["state_update:running", "tool_call_update", "tool_call_update", "agent_message_chunk", "state_update:idle"]);
    assert.equal(rest.at(-2).content.text, "Permission granted (allow-once); the command ran.");
    assert.equal(rest.at(-1).stopReason, "end_turn");
    live.push(early[0], { sessionUpdate: "tool_call_update", ...req.params.subject.toolCall }, ...rest.slice(1, -1));
  });

  await t.test("a cancelled permission outcome stops the turn", async () => {
    await c.call("session/prompt", { sessionId: "sess-1", prompt: prompt("permission") });
    const req = (await c.until((m) => m.method === "session/request_permission", "permission request")).at(-1);
    c.send({ jsonrpc: "2.0", id: req.id, result: { outcome: { outcome: "cancelled" } } });
    const rest = updatesOf(await c.untilIdle("sess-1"));
    assert.deepEqual(rest.at(-2), { sessionUpdate: "tool_call_update", toolCallId: "tc3", status: "cancelled" });
    assert.equal(rest.at(-1).stopReason, "cancelled");
  });

  await t.test("resume with replay reproduces the conversation", async () => {
    const closed = await c.call("session/close", { sessionId: "sess-1" });
    assert.deepEqual(closed.response.result, {});
    const gone = await c.call("session/prompt", { sessionId: "sess-1", prompt: prompt("hello") });
    assert.equal(gone.response.error.code, -32002);
    const { response, before } = await c.call("session/resume", { sessionId: "sess-1", cwd: CWD, replayFrom: { type: "start" } });
    assert.deepEqual(Object.keys(response.result).sort(), ["availableCommands", "configOptions"]);
    const replay = updatesOf(before);
    assert.deepEqual(replay.at(-1), { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" });
    const replayed = replay.slice(0, -1);
    // The live part checked above is a prefix of the replay (the cancelled turn follows).
    assert.deepEqual(replayed.slice(0, live.length), live);
    assert.equal(replayed.filter((u) => u.sessionUpdate === "state_update").length, 0);
    const noReplay = await c.call("session/resume", { sessionId: "sess-1", cwd: CWD });
    assert.deepEqual(kinds(updatesOf(noReplay.before)), ["state_update:idle"]);
  });

  await t.test("extension request and unknown method", async () => {
    const echo = await c.call("_test/echo", { a: [1, "x"] });
    assert.deepEqual(echo.response.result, { a: [1, "x"] });
    const unknown = await c.call("_test/unknown", {});
    assert.equal(unknown.response.error.code, -32601);
  });

  await t.test("exits cleanly on EOF", async () => {
    assert.equal(await c.close(), 0);
  });

  await t.test("validate.mjs accepts the recorded traffic", () => {
    const r = spawnSync(process.execPath, [VALIDATE, "--agent", recordFile], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, / 0 invalid/);
  });

  await t.test("validate.mjs rejects an invalid client message", () => {
    const bad = join(workDir, "bad.jsonl");
    const lines = readFileSync(recordFile, "utf8").trimEnd().split("\n");
    lines.push(JSON.stringify({ dir: "in", msg: { jsonrpc: "2.0", id: 99, method: "session/prompt", params: { sessionId: "sess-1", prompt: [] } } }));
    writeFileSync(bad, lines.join("\n") + "\n");
    const r = spawnSync(process.execPath, [VALIDATE, bad], { encoding: "utf8" });
    assert.equal(r.status, 1);
    assert.match(r.stdout, /INVALID client session\/prompt \(id 99\)/);
    assert.match(r.stdout, / 1 invalid/);
  });
});

test("auth-required gates sessions until auth/login", async () => {
  const c = new RawClient(["--auth-required"]);
  const init = await c.initialize();
  assert.deepEqual(init.result.authMethods.map((m) => [m.type, m.methodId]), [["agent", "test-login"]]);
  assert.equal((await c.call("session/new", { cwd: CWD })).response.error.code, -32000);
  assert.deepEqual((await c.call("auth/login", { methodId: "test-login" })).response.result, {});
  assert.equal((await c.call("session/new", { cwd: CWD })).response.result.sessionId, "sess-1");
  await c.call("auth/logout", {});
  assert.equal((await c.call("session/new", { cwd: CWD })).response.error.code, -32000);
  assert.equal(await c.close(), 0);
});

test("version negotiation scenarios", async () => {
  const reject = new RawClient(["--reject-version"]);
  const r = (await reject.call("initialize", { protocolVersion: 2, info: { name: "t", version: "0" } })).response;
  assert.equal(r.error.code, -32022);
  assert.deepEqual(r.error.data, { requested: 2, supported: [1] });
  const v1 = (await reject.call("initialize", { protocolVersion: 1, clientInfo: { name: "t", version: "0" } })).response;
  assert.equal(v1.result.protocolVersion, 1);
  assert.equal(await reject.close(), 0);

  const v3 = new RawClient(["--protocol-version=3"]);
  assert.equal((await v3.initialize()).result.protocolVersion, 3);
  assert.equal(await v3.close(), 0);
});

test("capability scenarios", async () => {
  const none = new RawClient(["--caps=none"]);
  assert.deepEqual((await none.initialize()).result.capabilities, {});
  assert.equal((await none.call("session/new", { cwd: CWD })).response.error.code, -32601);
  assert.equal(await none.close(), 0);

  const stdio = new RawClient(["--caps=stdio-only"]);
  assert.deepEqual((await stdio.initialize()).result.capabilities, { session: { mcp: { stdio: {} } } });
  const http = [{ type: "http", name: "h", url: "http://127.0.0.1:1/mcp", headers: [] }];
  assert.equal((await stdio.call("session/new", { cwd: CWD, mcpServers: http })).response.error.code, -32602);
  assert.equal(await stdio.close(), 0);
});

test("session/list paging, set_config_option, slow turn cancel", async () => {
  const c = new RawClient(["--slow-ms=20"]);
  await c.initialize();
  for (let i = 0; i < 3; i++) await c.call("session/new", { cwd: i === 2 ? "/other" : CWD });
  const p1 = (await c.call("session/list", {})).response.result;
  assert.deepEqual(p1.sessions.map((s) => s.sessionId), ["sess-1", "sess-2"]);
  const p2 = (await c.call("session/list", { cursor: p1.nextCursor })).response.result;
  assert.deepEqual(p2.sessions.map((s) => s.sessionId), ["sess-3"]);
  assert.equal(p2.nextCursor, undefined);
  assert.equal((await c.call("session/list", { cursor: "bogus" })).response.error.code, -32602);
  assert.deepEqual((await c.call("session/list", { cwd: "/other" })).response.result.sessions.map((s) => s.sessionId), ["sess-3"]);

  const set = (await c.call("session/set_config_option", { sessionId: "sess-1", configId: "model", type: "id", value: "model-b" })).response.result;
  assert.deepEqual(set.configOptions.map((o) => o.configId), ["model", "fast", "effort"]);
  const bad = await c.call("session/set_config_option", { sessionId: "sess-1", configId: "fast", type: "id", value: "x" });
  assert.equal(bad.response.error.code, -32602);

  await c.call("session/prompt", { sessionId: "sess-1", prompt: prompt("slow") });
  await c.until((m) => m.params?.update?.sessionUpdate === "agent_message_chunk", "first tick");
  c.notify("session/cancel", { sessionId: "sess-1" });
  const tail = updatesOf(await c.untilIdle("sess-1"));
  assert.deepEqual(tail.at(-2), { sessionUpdate: "tool_call_update", toolCallId: "tc1", status: "cancelled", capabilities: null });
  assert.equal(tail.at(-1).stopReason, "cancelled");
  assert.equal(await c.close(), 0);
});

test("elicitation, extension calls, held prompts; all traffic validates", async () => {
  const recordFile = join(workDir, "extras.jsonl");
  const c = new RawClient([`--record=${recordFile}`, "--slow-ms=20", "--slow-ticks=3"]);
  await c.initialize();
  await c.call("session/new", { cwd: CWD });

  await c.call("session/prompt", { sessionId: "sess-1", prompt: prompt("elicit-form") });
  const form = (await c.until((m) => m.method === "elicitation/create", "form elicitation")).at(-1);
  assert.equal(form.params.mode, "form");
  c.send({ jsonrpc: "2.0", id: form.id, result: { action: "accept", content: { name: "x", count: 2 } } });
  let turn = updatesOf(await c.untilIdle("sess-1"));
  assert.equal(turn.at(-2).content.text, 'Form result: accept {"count":2,"name":"x"}');

  await c.call("session/prompt", { sessionId: "sess-1", prompt: prompt("elicit-url") });
  const url = (await c.until((m) => m.method === "elicitation/create", "url elicitation")).at(-1);
  assert.equal(url.params.elicitationId, "elic-1");
  c.send({ jsonrpc: "2.0", id: url.id, result: { action: "accept" } });
  const urlTurn = await c.untilIdle("sess-1");
  assert.ok(urlTurn.some((m) => m.method === "elicitation/complete" && m.params.elicitationId === "elic-1"));
  assert.equal(updatesOf(urlTurn).at(-2).content.text, "URL result: accept");

  await c.call("session/prompt", { sessionId: "sess-1", prompt: prompt("ext") });
  const ping = (await c.until((m) => m.method === "_test/ping", "_test/ping")).at(-1);
  c.send({ jsonrpc: "2.0", id: ping.id, result: { pong: true } });
  const extTurn = await c.untilIdle("sess-1");
  assert.ok(extTurn.some((m) => m.method === "_test/notice"));
  assert.equal(updatesOf(extTurn).at(-2).content.text, 'ext result: {"pong":true}');

  // A prompt sent while "slow" runs is held: answered only once the first turn ends.
  const first = c.request("session/prompt", { sessionId: "sess-1", prompt: prompt("slow") });
  const second = c.request("session/prompt", { sessionId: "sess-1", prompt: prompt("hello") });
  const msgs = await c.until((m) => m.id === second && !m.method, "held prompt response");
  const firstIdle = msgs.findIndex((m) => m.params?.update?.state === "idle");
  assert.ok(msgs.findIndex((m) => m.id === first && !m.method) < firstIdle);
  assert.ok(firstIdle >= 0 && firstIdle < msgs.length - 1);
  turn = updatesOf(await c.untilIdle("sess-1"));
  assert.deepEqual(turn.map((u) => u.content?.text).filter(Boolean), ["Hello", ", world!"]);

  assert.equal(await c.close(), 0);
  const r = spawnSync(process.execPath, [VALIDATE, "--agent", recordFile], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test("--state-dir: sessions survive an agent restart; replay is identical", async (t) => {
  const spawned = [];
  const start = (...args) => {
    const c = new RawClient(...args);
    spawned.push(c);
    return c;
  };
  // A failed assertion must not leave an agent running (it would keep the test alive).
  t.after(() => {
    for (const c of spawned) if (c.child.exitCode === null) c.child.kill();
  });
  const stateDir = join(workDir, "state");
  const recordFile = join(workDir, "restart.jsonl");
  const liveOnly = (u) => u.sessionUpdate !== "state_update" && u.sessionUpdate !== "notice";

  // First process: a tool turn (plus a config change and a deleted session).
  const a = start([`--state-dir=${stateDir}`]);
  await a.initialize();
  assert.equal((await a.call("session/new", { cwd: CWD, mcpServers: [], additionalDirectories: ["/tmp/extra"] })).response.result.sessionId, "sess-1");
  await a.call("session/set_config_option", { sessionId: "sess-1", configId: "model", type: "id", value: "model-b" });
  const { response, before } = await a.call("session/prompt", { sessionId: "sess-1", prompt: prompt("tool") });
  assert.deepEqual(response.result, { messageId: "u1" });
  const first = [...updatesOf(before), ...updatesOf(await a.untilIdle("sess-1"))].filter(liveOnly);
  assert.deepEqual(kinds(first), ["user_message", ...TOOL_TURN.slice(0, -1)]);
  assert.equal((await a.call("session/new", { cwd: CWD })).response.result.sessionId, "sess-2");
  assert.deepEqual((await a.call("session/delete", { sessionId: "sess-2" })).response.result, {});
  assert.equal(await a.close(), 0);

  // The state file is complete JSON (no temp file left behind).
  assert.deepEqual(readdirSync(stateDir), ["sessions.json"]);
  const saved = JSON.parse(readFileSync(join(stateDir, "sessions.json"), "utf8"));
  assert.equal(saved.format, "libacp-ts-peer-state");
  assert.equal(saved.sessionCounter, 2);
  assert.deepEqual(saved.sessions.map((s) => [s.sessionId, s.deleted]), [["sess-1", false], ["sess-2", true]]);

  // Second process, same state dir (the env twin this time): list, resume with replay.
  const b = start([`--record=${recordFile}`], { ACP_PEER_STATE_DIR: stateDir });
  await b.initialize();
  const listed = (await b.call("session/list", {})).response.result;
  assert.deepEqual(listed, {
    sessions: [{ sessionId: "sess-1", cwd: CWD, additionalDirectories: ["/tmp/extra"], title: "Edit hello.txt", updatedAt: "2026-01-01T00:00:00Z" }],
  });
  // Not attached to the new connection until resumed.
  assert.equal((await b.call("session/prompt", { sessionId: "sess-1", prompt: prompt("hello") })).response.error.code, -32002);
  assert.equal((await b.call("session/resume", { sessionId: "sess-2", cwd: CWD })).response.error.code, -32002);
  const resumed = await b.call("session/resume", { sessionId: "sess-1", cwd: CWD, additionalDirectories: ["/tmp/extra"], replayFrom: { type: "start" } });
  assert.deepEqual(resumed.response.result.configOptions.map((o) => [o.configId, o.currentValue]), [
    ["model", "model-b"],
    ["fast", false],
    ["effort", "medium"],
  ]);
  const replay = updatesOf(resumed.before);
  assert.deepEqual(replay.at(-1), { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
  assert.deepEqual(replay.slice(0, -1), first);

  // Counters continue: per-session ids and session ids are not reused.
  const next = await b.call("session/prompt", { sessionId: "sess-1", prompt: prompt("hello") });
  assert.deepEqual(next.response.result, { messageId: "u2" });
  const hello = [...updatesOf(next.before), ...updatesOf(await b.untilIdle("sess-1"))].filter(liveOnly);
  assert.deepEqual(hello.map((u) => u.messageId), ["u2", "m3", "m3"]);
  assert.equal((await b.call("session/new", { cwd: CWD })).response.result.sessionId, "sess-3");
  assert.equal(await b.close(), 0);
  const r = spawnSync(process.execPath, [VALIDATE, "--agent", recordFile], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);

  // A third process sees the second one's changes; one without the flag sees nothing.
  const c = start([`--state-dir=${stateDir}`]);
  await c.initialize();
  assert.deepEqual((await c.call("session/list", {})).response.result.sessions.map((s) => s.sessionId), ["sess-1", "sess-3"]);
  const again = await c.call("session/resume", { sessionId: "sess-1", cwd: CWD, replayFrom: { type: "start" } });
  assert.deepEqual(updatesOf(again.before).slice(0, -1), [...first, ...hello]);
  assert.equal(await c.close(), 0);
  const plain = start([], { ACP_PEER_STATE_DIR: "" });
  await plain.initialize();
  assert.deepEqual((await plain.call("session/list", {})).response.result, { sessions: [] });
  assert.equal(await plain.close(), 0);
});

// ---------------------------------------------------------------------------
// server.mjs: the same agent over Streamable HTTP and WebSocket, driven through the
// SDK's own client transports (bridge.mjs), plus direct HTTP checks with fetch.

class PeerServer {
  constructor(args = []) {
    this.child = track(spawn(process.execPath, [SERVER, ...args], { stdio: ["pipe", "pipe", "pipe"] }));
    this.stderr = "";
    this.child.stderr.on("data", (d) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    this.stdoutLines = [];
    const lines = createInterface({ input: this.child.stdout });
    this.urls = new Promise((resolve, reject) => {
      lines.on("line", (line) => {
        this.stdoutLines.push(line);
        if (this.stdoutLines.length === 1) resolve(JSON.parse(line));
      });
      this.exited.then((code) => reject(new Error(`server.mjs exited ${code} before its URL line: ${this.stderr}`)));
    });
  }

  static async start(args = []) {
    const server = new PeerServer(args);
    server.url = await server.urls;
    return server;
  }

  /** A client over the SDK transport for `kind` ("http" | "ws"). */
  client(kind, { headers = [], env = {} } = {}) {
    return new RawClient([this.url[kind], ...headers.map((h) => `--header=${h}`)], env, BRIDGE);
  }

  /** Closes stdin (the server exits on EOF) and returns the exit code. */
  async stop() {
    this.child.stdin.end();
    return this.exited;
  }
}

const INIT = { protocolVersion: 2, info: { name: "selftest", version: "0" }, capabilities: {} };
const transportErrorOf = (c) => c.until((m) => m.transportError !== undefined, "transportError").then((msgs) => msgs.at(-1).transportError);

/** initialize, session/new, then the prompts' updates (through idle) — the same steps on every transport. */
async function conversation(c, prompts) {
  assert.equal((await c.initialize()).result.protocolVersion, 2);
  const { response } = await c.call("session/new", { cwd: CWD, mcpServers: [] });
  const sessionId = response.result.sessionId;
  const turns = [];
  for (const text of prompts) {
    const { response: r, before } = await c.call("session/prompt", { sessionId, prompt: prompt(text) });
    assert.ok(r.result, JSON.stringify(r));
    turns.push([...updatesOf(before), ...updatesOf(await c.untilIdle(sessionId))]);
  }
  return { sessionId, turns };
}

// Independent servers on their own ports: these run side by side.
describe("server.mjs", { concurrency: true }, () => {
  test("server.mjs: the stdio agent's conversation over HTTP and WebSocket; records validate", async (t) => {
    const recordFile = join(workDir, "server.jsonl");
    const server = await PeerServer.start([`--record=${recordFile}`]);
    assert.match(server.url.http, /^http:\/\/127\.0\.0\.1:\d+\/acp$/);
    assert.equal(server.url.ws, server.url.http.replace(/^http/, "ws"));
    const prompts = ["tool", "flood 20", "big 5000", "hello"];
    const stdio = new RawClient();
    const expected = await conversation(stdio, prompts);
    await stdio.close();
    assert.equal(expected.turns[1].filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text === "tok ").length, 20);
    assert.equal(expected.turns[2].find((u) => u.sessionUpdate === "agent_message_chunk").content.text, "x".repeat(5000));
    for (const [kind, sessionId] of [["http", "sess-1"], ["ws", "sess-2"]]) {
      await t.test(kind, async () => {
        const c = server.client(kind);
        const got = await conversation(c, prompts);
        assert.equal(got.sessionId, sessionId); // ids count per server process, across connections
        assert.deepEqual(got.turns, expected.turns);
        assert.equal(await c.close(), 0);
      });
    }
    await t.test("other paths are 404", async () => {
      const r = await fetch(server.url.http.replace(/\/acp$/, "/other"), { method: "POST" });
      assert.equal(r.status, 404);
    });
    assert.equal(await server.stop(), 0);
    assert.deepEqual(server.stdoutLines.length, 1, "stdout holds only the URL line");
    await t.test("validate.mjs --agent accepts the recorded traffic of both connections", () => {
      const records = readFileSync(recordFile, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual([...new Set(records.map((r) => `${r.conn}:${r.transport}`))], ["1:http", "2:ws"]);
      const r = spawnSync(process.execPath, [VALIDATE, "--agent", recordFile], { encoding: "utf8" });
      assert.equal(r.status, 0, r.stdout + r.stderr);
    });
  });

  test("server.mjs: sessions outlive their connection; a new one resumes mid-turn without duplicates", async () => {
    const server = await PeerServer.start(["--slow-ms=2", "--slow-ticks=100000"]);
    const a = server.client("http");
    await conversation(a, ["hello"]);
    await a.call("session/prompt", { sessionId: "sess-1", prompt: prompt("slow") });
    const seen = await a.until((m) => m.params?.update?.content?.text === "tick 3\n", "tick 3");
    assert.equal(await a.close(), 0); // DELETE of the connection; the turn goes on
    const b = server.client("ws");
    await b.initialize();
    const early = await b.call("session/prompt", { sessionId: "sess-1", prompt: prompt("hello") });
    assert.equal(early.response.error.code, -32002, "another connection must resume first");
    const { response, before } = await b.call("session/resume", { sessionId: "sess-1", cwd: CWD, replayFrom: { type: "start" } });
    assert.ok(response.result);
    // The replay, then the snapshot "running" (a live tick may already follow it).
    const received = updatesOf(before);
    const snapshot = received.findIndex((u) => u.sessionUpdate === "state_update");
    assert.deepEqual(received[snapshot], { sessionUpdate: "state_update", state: "running" });
    const replay = received.slice(0, snapshot);
    // The turn went on while no connection had the session; now b gets it live.
    const live = updatesOf(await b.until((m) => m.params?.update?.sessionUpdate === "agent_message_chunk", "a live tick"));
    b.notify("session/cancel", { sessionId: "sess-1" });
    const after = [...received.slice(snapshot + 1), ...live, ...updatesOf(await b.untilIdle("sess-1"))];
    assert.equal(after.at(-1).stopReason, "cancelled");
    const ticks = [...replay, ...after].filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text.startsWith("tick")).map((u) => u.content.text);
    assert.ok(ticks.length > 3);
    assert.deepEqual(ticks, Array.from({ length: ticks.length }, (_, i) => `tick ${i + 1}\n`));
    // What a saw live of that turn comes again, in order, in the replay.
    const liveA = updatesOf(seen).filter((u) => u.sessionUpdate !== "state_update");
    const at = replay.findIndex((u) => JSON.stringify(u) === JSON.stringify(liveA[0]));
    assert.ok(at > 0, "the slow turn's user_message is replayed after the hello turn");
    assert.deepEqual(replay.slice(at, at + liveA.length), liveA);
    assert.equal(await b.close(), 0);
    assert.equal(await server.stop(), 0);
  });

  test("server.mjs --state-dir: a restarted server resumes the sessions of the first", async () => {
    const stateDir = join(workDir, "server-state");
    const first = await PeerServer.start([`--state-dir=${stateDir}`]);
    const a = first.client("http");
    const { sessionId, turns } = await conversation(a, ["hello"]);
    assert.equal(await a.close(), 0);
    assert.equal(await first.stop(), 0);
    const second = await PeerServer.start([`--state-dir=${stateDir}`]);
    const b = second.client("ws");
    await b.initialize();
    const { response, before } = await b.call("session/resume", { sessionId, cwd: CWD, replayFrom: { type: "start" } });
    assert.ok(response.result, JSON.stringify(response));
    const live = turns[0].filter((u) => u.sessionUpdate !== "state_update");
    assert.deepEqual(updatesOf(before), [...live, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }]);
    assert.equal((await b.call("session/new", { cwd: CWD, mcpServers: [] })).response.result.sessionId, "sess-2");
    assert.equal(await b.close(), 0);
    assert.equal(await second.stop(), 0);
  });

  test("server.mjs: TLS with a throwaway CA; an untrusted CA is refused", async (t) => {
    const dir = join(workDir, "certs");
    const made = spawnSync("sh", [MAKE_CERT, dir], { encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    const server = await PeerServer.start([`--tls-cert=${join(dir, "server.pem")}`, `--tls-key=${join(dir, "server.key")}`]);
    assert.match(server.url.http, /^https:\/\/127\.0\.0\.1:\d+\/acp$/);
    assert.match(server.url.ws, /^wss:\/\//);
    for (const kind of ["http", "ws"]) {
      await t.test(`${kind} trusts ca.pem`, async () => {
        const c = server.client(kind, { env: { NODE_EXTRA_CA_CERTS: join(dir, "ca.pem") } });
        const { turns } = await conversation(c, ["hello"]);
        assert.deepEqual(turns[0].filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text), ["Hello", ", world!"]);
        assert.equal(await c.close(), 0);
      });
      await t.test(`${kind} refuses a server its CA did not sign`, async () => {
        const c = server.client(kind, { env: { NODE_EXTRA_CA_CERTS: join(dir, "other-ca.pem") } });
        c.request("initialize", INIT);
        assert.match(await transportErrorOf(c), /certificate|fetch failed/i);
        assert.equal(await c.exited, 3);
      });
    }
    assert.equal(await server.stop(), 0);
  });

  test("server.mjs: --require-token, --fail-method, --affinity-cookie", async (t) => {
    const server = await PeerServer.start(["--require-token=s3cret", "--fail-method=_test/echo:503", "--affinity-cookie"]);
    const auth = ["Authorization: Bearer s3cret"];
    await t.test("401 without the token, for HTTP and the WebSocket upgrade", async () => {
      const r = await fetch(server.url.http, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: INIT }) });
      assert.equal(r.status, 401);
      assert.equal(await r.text(), "unauthorized");
      for (const kind of ["http", "ws"]) {
        const c = server.client(kind, { headers: ["Authorization: Bearer wrong"] });
        c.request("initialize", INIT);
        assert.match(await transportErrorOf(c), /401/);
      }
    });
    for (const kind of ["http", "ws"]) {
      await t.test(`${kind}: with the token it works`, async () => {
        const c = server.client(kind, { headers: auth });
        await conversation(c, ["hello"]);
        if (kind === "http") {
          // Only that request fails, with {status, body} as data; the connection goes on.
          const echo = await c.call("_test/echo", { a: 1 });
          assert.equal(echo.response.error.code, -32603);
          assert.deepEqual(echo.response.error.data, { status: 503, body: { error: "injected", method: "_test/echo" } });
          const list = await c.call("session/list", {});
          assert.ok(list.response.result.sessions.length >= 1);
        } else {
          // --fail-method is an HTTP fault: WebSocket requests reach the agent.
          assert.deepEqual((await c.call("_test/echo", { a: 1 })).response.result, { a: 1 });
        }
        assert.equal(await c.close(), 0);
      });
    }
    await t.test("a request of a connection without its affinity cookie gets 400", async () => {
      const headers = { "Content-Type": "application/json", Authorization: "Bearer s3cret" };
      const init = await fetch(server.url.http, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: INIT }) });
      assert.equal(init.status, 200);
      const connectionId = init.headers.get("Acp-Connection-Id");
      assert.match(init.headers.get("Set-Cookie"), new RegExp(`acp-affinity=${connectionId}`));
      const bare = await fetch(server.url.http, { method: "POST", headers: { ...headers, "Acp-Connection-Id": connectionId }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/list", params: {} }) });
      assert.equal(bare.status, 400);
      assert.equal(await bare.text(), "missing affinity cookie");
      const withCookie = await fetch(server.url.http, { method: "DELETE", headers: { ...headers, "Acp-Connection-Id": connectionId, Cookie: `acp-affinity=${connectionId}` } });
      assert.equal(withCookie.status, 202);
    });
    assert.equal(await server.stop(), 0);
  });

  test("server.mjs: detach answers one session's HTTP requests 409 until it is resumed; slow SSE", async (t) => {
    const recordFile = join(workDir, "detach.jsonl");
    const server = await PeerServer.start([`--record=${recordFile}`, "--sse-open-delay-ms=300"]);
    const c = server.client("http");
    const started = Date.now();
    await c.initialize();
    const other = (await c.call("session/new", { cwd: CWD, mcpServers: [] })).response.result.sessionId;
    await t.test("--sse-open-delay-ms delays the SSE stream that carries the answer", () => {
      assert.ok(Date.now() - started >= 300, `session/new answered after ${Date.now() - started} ms`);
    });
    const sid = (await c.call("session/new", { cwd: CWD, mcpServers: [] })).response.result.sessionId;
    const { response } = await c.call("session/prompt", { sessionId: sid, prompt: prompt("detach") });
    assert.ok(response.result);
    const turn = updatesOf(await c.untilIdle(sid));
    assert.equal(turn.at(-1).stopReason, "end_turn");
    const refused = await c.call("session/prompt", { sessionId: sid, prompt: prompt("hello") });
    assert.equal(refused.response.error.data.status, 409);
    const stillOk = await c.call("session/prompt", { sessionId: other, prompt: prompt("hello") });
    assert.ok(stillOk.response.result, "another session is not affected");
    await c.untilIdle(other);
    const resumed = await c.call("session/resume", { sessionId: sid, cwd: CWD });
    assert.ok(resumed.response.result, JSON.stringify(resumed.response));
    const again = await c.call("session/prompt", { sessionId: sid, prompt: prompt("hello") });
    assert.ok(again.response.result);
    await c.untilIdle(sid);
    assert.equal(await c.close(), 0);
    assert.equal(await server.stop(), 0);
    const rejected = readFileSync(recordFile, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l)).filter((r) => r.http !== undefined);
    assert.deepEqual(rejected.map((r) => [r.conn, r.http, r.msg.method]), [[1, 409, "session/prompt"]]);
  });

  test("server.mjs exits 0 on SIGTERM and refuses bad options", async () => {
    const server = await PeerServer.start();
    server.child.kill("SIGTERM");
    assert.equal(await server.exited, 0);
    const bad = spawnSync(process.execPath, [SERVER, "--fail-method=nope"], { encoding: "utf8", input: "" });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /METHOD:STATUS/);
  });
});
