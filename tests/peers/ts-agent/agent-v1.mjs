#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// libacp test peer: the scripted agent of agent.mjs, speaking ACP v1 through the official
// TypeScript SDK's default (v1) entry point, @agentclientprotocol/sdk 2.4.0.
//
// It plays the same conversations as agent.mjs in v1 shapes, so a client that lifts v1
// into the v2 model ends up with the model a v2 run produces (tests/integration/
// client_v1_test.cpp compares them). Like real v1 agents it answers `initialize` with
// protocolVersion 1 whatever was asked, never echoes the prompt, reports the end of a
// turn only in the session/prompt response, and replays history on session/load
// (user messages included, as id-less user_message_chunk updates).
//
//   node agent-v1.mjs [--record=FILE] [--modes] [--no-message-ids] [--caps=full|minimal|no-dirs|unstable]
//
//   --record=FILE      as agent.mjs: every line in ("in") and out ("out"), for validate.mjs
//   --modes            sessions have modes (ask, code) and session/set_mode
//   --no-message-ids   chunks carry no messageId (most real v1 agents)
//   --caps=minimal     no loadSession, no sessionCapabilities, no prompt capabilities
//   --caps=no-dirs     full, but without sessionCapabilities.additionalDirectories
//   --caps=unstable    full, on the SDK's v1 unstable entry point (@agentclientprotocol/sdk/
//                      unstable), plus v1's unstable sessionCapabilities.{fork, archive,
//                      status, title, systemPrompt (override too)}, auth.status and
//                      providers, each served by the SDK's own handler: session/fork,
//                      archive, unarchive, status, set_title, auth/status (then an
//                      auth/status_update), providers/list, set, disable ("main" is
//                      required), the session/list `archived` filter and systemPrompt on
//                      new, load, resume and fork
//   --auth-required    advertises the auth method peer-login (v1 shape: `id`, no `type`)
//                      and auth.logout; session methods answer -32000 until authenticate
//   --late-replay      session/load answers first and replays the history after (a quirk
//                      of real agents)
//   --mcp-sse          also advertises mcpCapabilities.sse (full caps only)
//
// Scripts, chosen by the first word of the prompt text (README.md has the v2 originals):
//   hello        two agent_message_chunk updates: "Hello", ", world!"
//   work         chunks, a thought, a tool call (tool_call, then updates to completed),
//                a plan, a final message, usage and session info: the same model as
//                agent.mjs's `work`
//   permission   asks session/request_permission (v1 shape) and reports the outcome
//   slow         a cancellable tool call and --slow-ticks chunks, --slow-ms apart
//   fail         a chunk, then the prompt fails with -32603
//   caps         one message: the client info and capabilities the agent was given
//   system       one message: the session's systemPrompt as JSON (--caps=unstable)
//   fs           fs/read_text_file of CWD/in.txt, fs/write_text_file CWD/out.txt with it
//                reversed, when advertised; reports what it could do
//   term         terminal/create `echo hi`, output, wait_for_exit, release, when
//                advertised; a tool call shows the terminal
//   edit LINE    reads CWD/NOTES.md, a tool call with a v1 diff replacing its last line
//                by "- LINE" (oldText/newText the excerpt), session/request_permission;
//                allowed, fs/write_text_file of the result, else the call fails
//   rewrite LINE the same, appending "- LINE", the diff's oldText/newText the whole file
//   anything else one chunk "Echo: <text>"

import * as acpStable from "@agentclientprotocol/sdk";
import * as acpUnstable from "@agentclientprotocol/sdk/unstable";
import { appendFileSync } from "node:fs";
import { Readable } from "node:stream";

const opts = { record: undefined, modes: false, messageIds: true, caps: "full", slowMs: 100, slowTicks: 50, lateReplay: false, authRequired: false, mcpSse: false };
for (const arg of process.argv.slice(2)) {
  const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
  if (!m) {
    process.stderr.write(`agent-v1: unknown argument ${arg}\n`);
    process.exit(2);
  }
  if (m[1] === "record") opts.record = m[2];
  else if (m[1] === "modes") opts.modes = true;
  else if (m[1] === "no-message-ids") opts.messageIds = false;
  else if (m[1] === "late-replay") opts.lateReplay = true;
  else if (m[1] === "auth-required") opts.authRequired = true;
  else if (m[1] === "mcp-sse") opts.mcpSse = true;
  else if (m[1] === "caps" && ["full", "minimal", "no-dirs", "unstable"].includes(m[2])) opts.caps = m[2];
  else if (m[1] === "slow-ms") opts.slowMs = Number(m[2]);
  else if (m[1] === "slow-ticks") opts.slowTicks = Number(m[2]);
  else {
    process.stderr.write(`agent-v1: unknown option ${arg}\n`);
    process.exit(2);
  }
}

const unstable = opts.caps === "unstable";
const acp = unstable ? acpUnstable : acpStable;
const log = (...parts) => process.stderr.write(`agent-v1: ${parts.join(" ")}\n`);
const FIXED_TIME = "2026-01-01T00:00:00Z";
const text = (t) => ({ type: "text", text: t });

// ---------------------------------------------------------------------------
// Transport with the recorder of agent.mjs

function record(dir, line) {
  if (!opts.record) return;
  let entry;
  try {
    entry = { dir, msg: JSON.parse(line) };
  } catch {
    entry = { dir, raw: line };
  }
  appendFileSync(opts.record, JSON.stringify(entry) + "\n");
}

function inputRecorder() {
  let pending = Buffer.alloc(0);
  return new TransformStream({
    transform(chunk, controller) {
      pending = Buffer.concat([pending, Buffer.from(chunk)]);
      let nl;
      while ((nl = pending.indexOf(0x0a)) >= 0) {
        const line = pending.subarray(0, nl).toString("utf8").replace(/\r$/, "");
        pending = pending.subarray(nl + 1);
        if (line.trim() !== "") record("in", line);
      }
      controller.enqueue(chunk);
    },
  });
}

const stdoutSink = new WritableStream({
  write(chunk) {
    record("out", Buffer.from(chunk).toString("utf8").replace(/\n$/, ""));
    return new Promise((resolve) => process.stdout.write(chunk, () => resolve()));
  },
});
const wire = acp.ndJsonStream(stdoutSink, Readable.toWeb(process.stdin).pipeThrough(inputRecorder()));

// ---------------------------------------------------------------------------
// Sessions

const MODES = [
  { id: "ask", name: "Ask", description: "Asks before editing" },
  { id: "code", name: "Code" },
];

class Cancelled extends Error {}

class Session {
  constructor(sessionId, cwd) {
    this.sessionId = sessionId;
    this.cwd = cwd;
    this.history = []; // v1 updates, for session/load
    this.counters = new Map();
    this.config = { model: "model-a", fast: false, effort: "medium" };
    this.mode = "ask";
    this.turn = null; // AbortController of the running turn
    this.title = undefined;
    this.archived = false; // --caps=unstable
    this.systemPrompt = null; // --caps=unstable: as given to new, load, resume or fork
  }
  nextId(prefix) {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}${n}`;
  }
  // The options of agent.mjs, in v1 shape (`id` for `configId`).
  configOptions() {
    const options = [
      {
        id: "model",
        name: "Model",
        category: "model",
        type: "select",
        currentValue: this.config.model,
        options: [
          { value: "model-a", name: "Model A", description: "Small and quick" },
          { value: "model-b", name: "Model B", description: "Large; adds the effort option" },
        ],
      },
      { id: "fast", name: "Fast mode", category: "model_config", type: "boolean", currentValue: this.config.fast },
    ];
    if (this.config.model === "model-b") {
      options.push({
        id: "effort",
        name: "Effort",
        category: "thought_level",
        type: "select",
        currentValue: this.config.effort,
        options: [
          { value: "low", name: "Low" },
          { value: "medium", name: "Medium" },
          { value: "high", name: "High" },
        ],
      });
    }
    return options;
  }
  setup() {
    const result = { configOptions: this.configOptions() };
    if (opts.modes) result.modes = { currentModeId: this.mode, availableModes: MODES };
    return result;
  }
}

const AVAILABLE_COMMANDS = [
  { name: "web", description: "Search the web", input: { hint: "query" } },
  { name: "clear", description: "Clear the conversation" },
];

const sessions = new Map();
let sessionCounter = 0;
let clientInit = {};
let client;

function session(sessionId) {
  const s = sessions.get(sessionId);
  if (!s) throw acp.RequestError.resourceNotFound(sessionId);
  return s;
}

async function emit(s, update, { store = true } = {}) {
  if (store) s.history.push(structuredClone(update));
  await client.notify(acp.methods.client.session.update, { sessionId: s.sessionId, update });
}

// A chunk with the message id agent.mjs would use, unless --no-message-ids.
function chunk(kind, messageId, content) {
  const update = { sessionUpdate: kind, content };
  if (opts.messageIds) update.messageId = messageId;
  return update;
}

// ---------------------------------------------------------------------------
// Scripts

class Turn {
  constructor(s) {
    this.s = s;
    this.controller = new AbortController();
  }
  check() {
    if (this.controller.signal.aborted) throw new Cancelled();
  }
  async emit(update, options) {
    this.check();
    await emit(this.s, update, options);
  }
  sleep(ms) {
    return new Promise((resolve, reject) => {
      const signal = this.controller.signal;
      if (signal.aborted) return reject(new Cancelled());
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => (clearTimeout(timer), reject(new Cancelled())), { once: true });
    });
  }
  async request(method, params) {
    this.check();
    try {
      return await client.request(method, params, { cancellationSignal: this.controller.signal, stopWaitingOnCancel: true });
    } catch (err) {
      if (this.controller.signal.aborted) throw new Cancelled();
      throw err;
    }
  }
}

const SCRIPTS = {
  async hello(t) {
    const m = t.s.nextId("m");
    await t.emit(chunk("agent_message_chunk", m, text("Hello")));
    await t.emit(chunk("agent_message_chunk", m, text(", world!")));
  },

  async work(t) {
    const s = t.s;
    const path = `${s.cwd.replace(/\/$/, "")}/hello.txt`;
    const m1 = s.nextId("m");
    await t.emit(chunk("agent_message_chunk", m1, text("Let me ")));
    await t.emit(chunk("agent_message_chunk", m1, text("edit hello.txt.")));
    const th = s.nextId("th");
    await t.emit(chunk("agent_thought_chunk", th, text("The greeting needs an exclamation mark.")));
    const tc = s.nextId("tc");
    await t.emit({
      sessionUpdate: "tool_call",
      toolCallId: tc,
      title: "Edit hello.txt",
      kind: "edit",
      status: "pending",
      locations: [{ path, line: 1 }],
      rawInput: { path, find: "Hello", replace: "Hello!" },
    });
    await t.emit({
      sessionUpdate: "tool_call_update",
      toolCallId: tc,
      status: "in_progress",
      content: [{ type: "content", content: text("Replacing 1 occurrence") }],
    });
    await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "completed", title: null, rawOutput: { ok: true } });
    await t.emit({
      sessionUpdate: "plan",
      entries: [
        { content: "Edit hello.txt", priority: "high", status: "completed" },
        { content: "Run the checks", priority: "medium", status: "completed" },
        { content: "Write a summary", priority: "low", status: "in_progress" },
      ],
    });
    const m2 = s.nextId("m");
    await t.emit(chunk("agent_message_chunk", m2, text("Done: hello.txt now says Hello!")));
    await t.emit({ sessionUpdate: "usage_update", used: 1234, size: 200000, cost: { amount: 0.25, currency: "USD" } });
    s.title = "Edit hello.txt";
    await t.emit({ sessionUpdate: "session_info_update", title: "Edit hello.txt", updatedAt: FIXED_TIME });
  },

  async permission(t) {
    const s = t.s;
    const m1 = s.nextId("m");
    await t.emit(chunk("agent_message_chunk", m1, text("I need to run a command.")));
    const tc = s.nextId("tc");
    const toolCall = { toolCallId: tc, title: "Run rm -rf build", name: "run_command", kind: "execute", status: "pending", rawInput: { command: "rm -rf build" } };
    // The request introduces the tool call; history gets the equivalent tool_call.
    s.history.push({ sessionUpdate: "tool_call", ...toolCall });
    const options = [
      { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
      { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
      { optionId: "reject-once", name: "Reject", kind: "reject_once" },
    ];
    const response = await t.request(acp.methods.client.session.requestPermission, { sessionId: s.sessionId, toolCall, options });
    const outcome = response.outcome;
    const chosen = outcome?.outcome === "selected" ? options.find((o) => o.optionId === outcome.optionId) : undefined;
    if (!chosen) {
      await emit(s, { sessionUpdate: "tool_call_update", toolCallId: tc, status: "failed" });
      return "cancelled";
    }
    const m2 = s.nextId("m");
    if (chosen.kind.startsWith("allow")) {
      await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "in_progress" });
      await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "completed", rawOutput: { exitCode: 0 } });
      await t.emit(chunk("agent_message_chunk", m2, text(`Permission granted (${chosen.optionId}); the command ran.`)));
    } else {
      await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "failed", rawOutput: { rejected: true } });
      await t.emit(chunk("agent_message_chunk", m2, text(`Permission rejected (${chosen.optionId}); the command was skipped.`)));
    }
  },

  async slow(t) {
    const s = t.s;
    const tc = s.nextId("tc");
    await t.emit({ sessionUpdate: "tool_call", toolCallId: tc, title: "Long build", kind: "execute", status: "in_progress" });
    const m = s.nextId("m");
    try {
      for (let i = 1; i <= opts.slowTicks; i++) {
        await t.sleep(opts.slowMs);
        await t.emit(chunk("agent_message_chunk", m, text(`tick ${i}\n`)));
      }
      await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "completed" });
    } catch (err) {
      // v1 has no `cancelled` tool status: the tool call failed.
      if (err instanceof Cancelled) await emit(s, { sessionUpdate: "tool_call_update", toolCallId: tc, status: "failed" });
      throw err;
    }
  },

  async fail(t) {
    const m = t.s.nextId("m");
    await t.emit(chunk("agent_message_chunk", m, text("Something went wrong.")));
    throw acp.RequestError.internalError(undefined, "Scripted failure");
  },

  async caps(t) {
    const m = t.s.nextId("m");
    const seen = { clientInfo: clientInit.clientInfo ?? null, clientCapabilities: clientInit.clientCapabilities ?? null };
    await t.emit(chunk("agent_message_chunk", m, text(`caps: ${JSON.stringify(seen)}`)));
  },

  async system(t) {
    const m = t.s.nextId("m");
    await t.emit(chunk("agent_message_chunk", m, text(`system: ${JSON.stringify(t.s.systemPrompt)}`)));
  },

  async fs(t) {
    const s = t.s;
    const fs = clientInit.clientCapabilities?.fs ?? {};
    const m = s.nextId("m");
    if (!fs.readTextFile || !fs.writeTextFile) {
      await t.emit(chunk("agent_message_chunk", m, text("The client has no file system.")));
      return;
    }
    const dir = s.cwd.replace(/\/$/, "");
    const read = await t.request(acp.methods.client.fs.readTextFile, { sessionId: s.sessionId, path: `${dir}/in.txt` });
    const reversed = [...read.content].reverse().join("");
    await t.request(acp.methods.client.fs.writeTextFile, { sessionId: s.sessionId, path: `${dir}/out.txt`, content: reversed });
    await t.emit(chunk("agent_message_chunk", m, text(`read ${read.content.length} chars, wrote them reversed`)));
  },

  // An edit of <cwd>/NOTES.md reviewed the v1 way: the file is read (fs/read_text_file),
  // a tool call carries the diff, session/request_permission asks about it; allowed, the
  // file is written (fs/write_text_file) and the call completes; rejected, the call fails.
  // `edit <line>` replaces the last line, its diff an excerpt of the file (oldText/newText
  // are the edit tool's old and new strings, as some agents send them); `rewrite <line>`
  // appends <line>, its diff the whole file (oldText the text read).
  async edit(t, promptText) {
    await editNotes(t, promptText, false);
  },
  async rewrite(t, promptText) {
    await editNotes(t, promptText, true);
  },

  async term(t) {
    const s = t.s;
    const m = s.nextId("m");
    if (!clientInit.clientCapabilities?.terminal) {
      await t.emit(chunk("agent_message_chunk", m, text("The client has no terminals.")));
      return;
    }
    const created = await t.request(acp.methods.client.terminal.create, { sessionId: s.sessionId, command: "echo", args: ["hi"] });
    const tc = s.nextId("tc");
    const terminalId = created.terminalId;
    await t.emit({
      sessionUpdate: "tool_call",
      toolCallId: tc,
      title: "echo hi",
      kind: "execute",
      status: "in_progress",
      content: [{ type: "terminal", terminalId }],
    });
    const exit = await t.request(acp.methods.client.terminal.waitForExit, { sessionId: s.sessionId, terminalId });
    const output = await t.request(acp.methods.client.terminal.output, { sessionId: s.sessionId, terminalId });
    await t.request(acp.methods.client.terminal.release, { sessionId: s.sessionId, terminalId });
    await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "completed" });
    await t.emit(chunk("agent_message_chunk", m, text(`terminal said ${JSON.stringify(output.output)}, exit ${exit.exitCode}`)));
  },
};

async function editNotes(t, promptText, whole) {
  const s = t.s;
  const m = s.nextId("m");
  const fs = clientInit.clientCapabilities?.fs ?? {};
  if (!fs.readTextFile || !fs.writeTextFile) {
    await t.emit(chunk("agent_message_chunk", m, text("The client has no file system.")));
    return;
  }
  const path = `${s.cwd.replace(/\/$/, "")}/NOTES.md`;
  const line = `- ${promptText.trim().split(/\s+/).slice(1).join(" ")}`;
  const before = (await t.request(acp.methods.client.fs.readTextFile, { sessionId: s.sessionId, path })).content;
  const lines = before.replace(/\n$/, "").split("\n");
  const oldText = whole ? before : `${lines[lines.length - 1]}\n`;
  const after = whole ? `${before.replace(/\n?$/, "\n")}${line}\n` : `${lines.slice(0, -1).join("\n")}\n${line}\n`;
  const newText = whole ? after : `${line}\n`;
  const tc = s.nextId("tc");
  await t.emit({
    sessionUpdate: "tool_call",
    toolCallId: tc,
    title: "Edit NOTES.md",
    kind: "edit",
    status: "pending",
    locations: [{ path }],
    content: [{ type: "diff", path, oldText, newText }],
  });
  const options = [
    { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
    { optionId: "reject-once", name: "Reject", kind: "reject_once" },
  ];
  const response = await t.request(acp.methods.client.session.requestPermission, {
    sessionId: s.sessionId,
    toolCall: { toolCallId: tc, title: "Edit NOTES.md" },
    options,
  });
  const outcome = response.outcome;
  const chosen = outcome?.outcome === "selected" ? options.find((o) => o.optionId === outcome.optionId) : undefined;
  if (!chosen || chosen.kind !== "allow_once") {
    await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "failed" });
    await t.emit(chunk("agent_message_chunk", s.nextId("m"), text(`OK, I left NOTES.md alone (${chosen?.optionId ?? "cancelled"}).`)));
    return;
  }
  await t.request(acp.methods.client.fs.writeTextFile, { sessionId: s.sessionId, path, content: after });
  await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "completed" });
  await t.emit(chunk("agent_message_chunk", s.nextId("m"), text(`Done: NOTES.md has ${line}`)));
}

async function echo(t, promptText) {
  const m = t.s.nextId("m");
  await t.emit(chunk("agent_message_chunk", m, text(`Echo: ${promptText.trim()}`)));
}

// ---------------------------------------------------------------------------
// Handlers

const app = acp.agent({ name: "libacp-ts-peer-v1" });
const m = acp.methods.agent;

app.onRequest(m.initialize, async ({ params }) => {
  // Only a v1-shaped request tells a v1 agent who the client is (CLIENT-GUIDE §10).
  clientInit = params;
  log(`initialize protocolVersion ${params.protocolVersion}`);
  const full = opts.caps !== "minimal";
  return {
    protocolVersion: 1,
    agentInfo: { name: "libacp-ts-peer-v1", title: "libacp TS peer agent (v1)", version: "1.0.0" },
    agentCapabilities: {
      ...(full
        ? {
            loadSession: true,
            promptCapabilities: { image: true, audio: true, embeddedContext: true },
            mcpCapabilities: { http: true, ...(opts.mcpSse ? { sse: true } : {}) },
            sessionCapabilities: {
              list: {},
              resume: {},
              close: {},
              delete: {},
              ...(opts.caps !== "no-dirs" ? { additionalDirectories: {} } : {}),
              ...(unstable
                ? { fork: {}, archive: {}, status: {}, title: {}, systemPrompt: { mode: { override: {} } } }
                : {}),
            },
            ...(unstable ? { providers: {} } : {}),
          }
        : { loadSession: false }),
      ...(opts.authRequired || unstable
        ? { auth: { ...(opts.authRequired ? { logout: {} } : {}), ...(unstable ? { status: {} } : {}) } }
        : {}),
    },
    authMethods: opts.authRequired ? [{ id: "peer-login", name: "Peer login", description: "Always succeeds" }] : [],
  };
});

let loggedIn = false;
function requireAuth() {
  if (opts.authRequired && !loggedIn) throw acp.RequestError.authRequired(undefined, "authenticate first");
}
if (opts.authRequired) {
  app.onRequest(m.authenticate, async ({ params }) => {
    if (params.methodId !== "peer-login") throw acp.RequestError.invalidParams(undefined, `unknown method ${params.methodId}`);
    loggedIn = true;
    return {};
  });
  app.onRequest(m.logout, async () => {
    loggedIn = false;
    return {};
  });
}

app.onRequest(m.session.new, async ({ params }) => {
  requireAuth();
  const s = new Session(`sess-${++sessionCounter}`, params.cwd);
  if (params.systemPrompt) s.systemPrompt = validateSystemPrompt(params.systemPrompt);
  sessions.set(s.sessionId, s);
  // v1 has no commands in the answer: they follow as an update (after the answer).
  setTimeout(() => void emit(s, { sessionUpdate: "available_commands_update", availableCommands: AVAILABLE_COMMANDS }, { store: false }), 0);
  return { sessionId: s.sessionId, ...s.setup() };
});

app.onRequest(m.session.load, async ({ params }) => {
  const s = session(params.sessionId);
  if (params.systemPrompt) s.systemPrompt = validateSystemPrompt(params.systemPrompt);
  const replay = async () => {
    for (const update of s.history) await emit(s, structuredClone(update), { store: false });
    await emit(s, { sessionUpdate: "available_commands_update", availableCommands: AVAILABLE_COMMANDS }, { store: false });
  };
  if (opts.lateReplay) {
    setTimeout(() => void replay(), 5); // after the answer has gone out
  } else {
    await replay();
  }
  return s.setup();
});

app.onRequest(m.session.resume, async ({ params }) => {
  const s = session(params.sessionId);
  if (params.systemPrompt) s.systemPrompt = validateSystemPrompt(params.systemPrompt);
  return s.setup();
});

app.onRequest(m.session.list, async ({ params }) => {
  // The unstable `archived` filter: exclude (the default), include, only.
  const archived = params?.archived ?? "exclude";
  const listed = [...sessions.values()].filter((s) =>
    archived === "only" ? s.archived : archived === "include" ? true : !s.archived,
  );
  return {
    sessions: listed.map((s) => ({
      sessionId: s.sessionId,
      cwd: s.cwd,
      ...(s.title ? { title: s.title } : {}),
      ...(s.archived ? { archived: true } : {}),
    })),
  };
});

app.onRequest(m.session.close, async ({ params }) => {
  const s = sessions.get(params.sessionId);
  if (s?.turn) s.turn.controller.abort();
  return {};
});

app.onRequest(m.session.delete, async ({ params }) => {
  sessions.delete(params.sessionId);
  return {};
});

app.onRequest(m.session.setMode, async ({ params }) => {
  const s = session(params.sessionId);
  if (!MODES.some((mode) => mode.id === params.modeId)) throw acp.RequestError.invalidParams({ modeId: params.modeId });
  s.mode = params.modeId;
  return {};
});

app.onRequest(m.session.setConfigOption, async ({ params }) => {
  const s = session(params.sessionId);
  const option = s.configOptions().find((o) => o.id === params.configId);
  if (!option) throw acp.RequestError.invalidParams({ configId: params.configId }, "unknown config option");
  const wantBoolean = option.type === "boolean";
  if (wantBoolean !== (params.type === "boolean") || typeof params.value !== (wantBoolean ? "boolean" : "string")) {
    throw acp.RequestError.invalidParams({ configId: params.configId }, "value of the wrong type");
  }
  s.config[params.configId] = params.value;
  if (params.configId === "model" && params.value === "model-a") s.config.effort = "medium";
  return { configOptions: s.configOptions() };
});

app.onRequest(m.session.prompt, async ({ params }) => {
  const s = session(params.sessionId);
  if (s.turn) throw acp.RequestError.invalidRequest(undefined, "a turn is already running");
  const turn = new Turn(s);
  s.turn = turn;
  // Not echoed live; kept for the replay as a real v1 agent does.
  for (const block of params.prompt) s.history.push({ sessionUpdate: "user_message_chunk", content: block });
  const promptText = params.prompt.filter((b) => b.type === "text").map((b) => b.text).join(" ");
  const word = promptText.trim().split(/\s+/)[0].toLowerCase();
  try {
    const stop = await (SCRIPTS[word] ?? echo)(turn, promptText);
    return { stopReason: stop ?? "end_turn" };
  } catch (err) {
    if (err instanceof Cancelled) return { stopReason: "cancelled" };
    throw err;
  } finally {
    s.turn = null;
  }
});

app.onNotification(m.session.cancel, async ({ params }) => {
  sessions.get(params.sessionId)?.turn?.controller.abort();
});

if (unstable) unstableHandlers();

/** systemPrompt as CLIENT-GUIDE 4.14 has it: append or override, non-empty text blocks only. */
function validateSystemPrompt(prompt) {
  if (prompt.mode !== "append" && prompt.mode !== "override") {
    throw acp.RequestError.invalidParams({ mode: prompt.mode }, "unsupported systemPrompt mode");
  }
  if (!Array.isArray(prompt.content) || prompt.content.length === 0 ||
      prompt.content.some((b) => b.type !== "text" || b.text === "")) {
    throw acp.RequestError.invalidParams({}, "systemPrompt content must be non-empty text blocks");
  }
  return structuredClone(prompt);
}

/** v1's unstable methods (--caps=unstable), each on the SDK's own handler. */
function unstableHandlers() {
  // A new session with a copy of the source's history; its answer has v1's modes and options.
  app.onRequest(m.session.fork, async ({ params }) => {
    const source = session(params.sessionId);
    if ((params.mcpServers ?? []).some((server) => server.type === "stdio")) {
      throw acp.RequestError.invalidParams({}, "v1 stdio MCP servers carry no type");
    }
    const s = new Session(`sess-${++sessionCounter}`, params.cwd);
    s.history = structuredClone(source.history);
    s.counters = new Map(source.counters);
    s.config = { ...source.config };
    s.mode = source.mode;
    s.systemPrompt = params.systemPrompt ? validateSystemPrompt(params.systemPrompt) : source.systemPrompt;
    sessions.set(s.sessionId, s);
    return { sessionId: s.sessionId, ...s.setup() };
  });

  app.onRequest(m.session.archive, async ({ params }) => {
    const s = session(params.sessionId);
    s.turn?.controller.abort();
    s.archived = true;
    return {};
  });

  app.onRequest(m.session.unarchive, async ({ params }) => {
    session(params.sessionId).archived = false;
    return {};
  });

  // v1's answer has no state: only whether the agent holds the session in memory.
  app.onRequest(m.session.status, async ({ params }) => ({ status: session(params.sessionId).archived ? "saved" : "open" }));

  app.onRequest(m.session.setTitle, async ({ params }) => {
    const s = session(params.sessionId);
    const title = params.title.trim();
    if (title === "") throw acp.RequestError.invalidParams({ title: params.title }, "empty title");
    s.title = title;
    return { title };
  });

  // After each auth/status answer the agent also pushes the state once.
  app.onRequest(m.auth.status, async () => {
    setTimeout(() => void client.notify(acp.methods.client.auth.statusUpdate, { state: "authenticated" }), 5);
    return { state: "authenticated", accounts: [{ label: "Test account", active: true }] };
  });

  const providers = [
    { providerId: "main", supported: ["anthropic"], required: true, current: { apiType: "anthropic", baseUrl: "https://llm.example/anthropic" } },
    { providerId: "extra", supported: ["openai"], required: false, current: null },
  ];
  const provider = (providerId) => {
    const p = providers.find((x) => x.providerId === providerId);
    if (!p) throw acp.RequestError.invalidParams({ providerId }, "unknown provider");
    return p;
  };
  app.onRequest(m.providers.list, async () => ({ providers: structuredClone(providers) }));
  app.onRequest(m.providers.set, async ({ params }) => {
    const p = provider(params.providerId);
    if (!p.supported.includes(params.apiType)) throw acp.RequestError.invalidParams({ apiType: params.apiType }, "unsupported apiType");
    p.current = { apiType: params.apiType, baseUrl: params.baseUrl };
    return {};
  });
  app.onRequest(m.providers.disable, async ({ params }) => {
    const p = provider(params.providerId);
    if (p.required) throw acp.RequestError.invalidParams({ providerId: p.providerId }, "required providers cannot be disabled");
    p.current = null;
    return {};
  });
}

const connection = app.connect(wire);
client = connection.client;
log("ready");
connection.closed.then(
  () => process.exit(0),
  (err) => {
    log(`connection failed: ${err?.message ?? err}`);
    process.exit(1);
  },
);
process.stdout.on("error", () => process.exit(0));
