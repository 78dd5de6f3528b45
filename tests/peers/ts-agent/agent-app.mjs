// SPDX-License-Identifier: Apache-2.0
// libacp test peer: the scripted ACP v2 agent app (sessions, handlers, prompt scripts),
// built on the official TypeScript SDK (@agentclientprotocol/sdk 2.4.0, "experimental/v2").
//
// Shared by the two entry points:
//   agent.mjs   one connection over stdin/stdout (NDJSON)
//   server.mjs  many connections over Streamable HTTP and WebSocket (the SDK's AcpServer)
//
// Session state (sessions, ids, replay history, the --state-dir file) belongs to the
// process, not to a connection: a client that connects again can session/resume its
// sessions. Per connection are only the client's capabilities and the login state.
// A session is attached to the connection that last created or resumed it; its updates
// go there. While it is attached to none (its connection closed), a running turn goes
// on and its updates only enter the replay history.
//
// Options are documented in agent.mjs and README.md; scripts in README.md.

import * as acp from "@agentclientprotocol/sdk/experimental/v2";
// --caps=unstable: the app comes from the SDK's unstable entry point, which knows those methods.
import * as acpUnstable from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

// ---------------------------------------------------------------------------
// Options

/**
 * Parses the agent's flags (and their environment twins). `extraFlags` names further
 * flags an entry point takes itself (server.mjs); their raw values come back in `extra`.
 * Throws on an unknown flag or a bad value.
 */
export function readOptions(argv, env, extraFlags = []) {
  const flags = new Map();
  const valued = new Set(); // flags given as --name=value
  for (const arg of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new Error(`unknown argument: ${arg}`);
    flags.set(m[1], m[2] ?? "1");
    if (m[2] !== undefined) valued.add(m[1]);
  }
  const pick = (flag, envName, fallback) =>
    flags.has(flag) ? flags.get(flag) : env[envName] !== undefined && env[envName] !== "" ? env[envName] : fallback;
  const truthy = (v) => v !== undefined && v !== "0" && v !== "false";
  const int = (v, name) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} needs a non-negative integer, got ${v}`);
    return n;
  };
  const known = new Set(["caps", "auth-required", "protocol-version", "reject-version", "page-size", "slow-ms", "slow-ticks", "record", "state-dir",
    "silent-initialize", "pid-file", "unknown-session-errors", "empty-cursor", ...extraFlags]);
  for (const k of flags.keys()) if (!known.has(k)) throw new Error(`unknown option --${k}`);
  const caps = pick("caps", "ACP_PEER_CAPS", "full");
  if (!["full", "none", "stdio-only", "http-only", "unstable"].includes(caps)) throw new Error(`bad --caps=${caps}`);
  const pageSize = int(pick("page-size", "ACP_PEER_PAGE_SIZE", "2"), "page-size");
  if (pageSize < 1) throw new Error("--page-size must be at least 1");
  if (flags.has("state-dir") && (!valued.has("state-dir") || flags.get("state-dir") === "")) {
    throw new Error("--state-dir needs a directory: --state-dir=DIR");
  }
  const stateDir = pick("state-dir", "ACP_PEER_STATE_DIR", undefined);
  return {
    caps,
    authRequired: truthy(pick("auth-required", "ACP_PEER_AUTH_REQUIRED", undefined)),
    protocolVersion: int(pick("protocol-version", "ACP_PEER_PROTOCOL_VERSION", undefined), "protocol-version"),
    rejectVersion: truthy(pick("reject-version", "ACP_PEER_REJECT_VERSION", undefined)),
    pageSize,
    slowMs: int(pick("slow-ms", "ACP_PEER_SLOW_MS", "100"), "slow-ms"),
    slowTicks: int(pick("slow-ticks", "ACP_PEER_SLOW_TICKS", "50"), "slow-ticks"),
    record: pick("record", "ACP_PEER_RECORD", undefined),
    stateDir: stateDir === undefined ? undefined : resolve(stateDir),
    silentInitialize: flags.has("silent-initialize"),
    pidFile: flags.get("pid-file"),
    unknownSessionErrors: flags.has("unknown-session-errors"),
    emptyCursor: flags.has("empty-cursor"),
    extra: new Map(extraFlags.filter((k) => flags.has(k)).map((k) => [k, { value: flags.get(k), valued: valued.has(k) }])),
  };
}

export const AGENT_INFO = { name: "libacp-ts-peer", title: "libacp TS peer agent", version: "1.0.0" };
const AUTH_METHOD = {
  type: "agent",
  methodId: "test-login",
  name: "Test login",
  description: "Always succeeds; required before sessions when --auth-required is set.",
};
// A fixed timestamp keeps session_info_update / session/list output byte-stable.
const FIXED_TIME = "2026-01-01T00:00:00Z";

function sessionCapabilities(caps) {
  switch (caps) {
    case "none":
      return undefined;
    case "stdio-only":
      return { mcp: { stdio: {} } };
    case "http-only":
      return { mcp: { http: {} } };
    case "unstable":
      // full, and the unstable schema's session surface (CLIENT-GUIDE 4.14)
      return {
        ...sessionCapabilities("full"),
        fork: {},
        archive: {},
        status: {},
        title: {},
        systemPrompt: { mode: { override: {} } },
      };
    default:
      return {
        prompt: { image: {}, audio: {}, embeddedContext: {} },
        mcp: { stdio: {}, http: {} },
        delete: {},
        additionalDirectories: {},
      };
  }
}

// --caps=unstable: the LLM providers the agent routes to; "main" cannot be disabled.
function initialProviders() {
  return [
    { providerId: "main", supported: ["anthropic"], required: true, current: { apiType: "anthropic", baseUrl: "https://llm.example/anthropic" } },
    { providerId: "extra", supported: ["openai"], required: false, current: null },
  ];
}

// ---------------------------------------------------------------------------
// Session model

const text = (t) => ({ type: "text", text: t });

class Cancelled extends Error {
  constructor() {
    super("turn cancelled");
  }
}

class Session {
  constructor(sessionId, cwd, additionalDirectories) {
    this.sessionId = sessionId;
    this.cwd = cwd;
    this.additionalDirectories = additionalDirectories ?? [];
    this.title = undefined;
    this.updatedAt = undefined;
    this.active = true; // attached to a connection (new/resume), not closed
    this.conn = null; // that connection (see connect()); null while attached to none
    this.deleted = false;
    this.archived = false; // --caps=unstable: session/archive
    this.systemPrompt = null; // --caps=unstable: as given to new/resume/fork
    // Every update that is part of the conversation, in send order, for replay.
    this.history = [];
    this.counters = new Map();
    this.turn = null; // the foreground turn, while one runs
    this.held = []; // prompts waiting for the running turn: {admit, reject}
    this.lastStopReason = undefined;
    this.config = { model: "model-a", fast: false, effort: "medium" };
  }

  /** Per-session, per-kind counters: ids depend only on this session's own history. */
  nextId(prefix) {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    saveState();
    return `${prefix}${n}`;
  }

  /** Appends an update to the replay history (and to the state file, if any). */
  remember(update) {
    this.history.push(structuredClone(update));
    saveState();
  }

  /** The persisted form (see "State directory" in README.md); the live-only parts stay out. */
  toState() {
    const state = {
      sessionId: this.sessionId,
      cwd: this.cwd,
      additionalDirectories: [...this.additionalDirectories],
      config: { ...this.config },
      counters: Object.fromEntries(this.counters),
      deleted: this.deleted,
      history: this.history,
    };
    if (this.title !== undefined) state.title = this.title;
    if (this.updatedAt !== undefined) state.updatedAt = this.updatedAt;
    if (this.lastStopReason !== undefined) state.lastStopReason = this.lastStopReason;
    return state;
  }

  static fromState(st) {
    const s = new Session(st.sessionId, st.cwd, st.additionalDirectories);
    s.active = false; // a restarted agent has no attached sessions: session/resume first
    s.deleted = st.deleted === true;
    if (st.title !== undefined) s.title = st.title;
    if (st.updatedAt !== undefined) s.updatedAt = st.updatedAt;
    if (st.lastStopReason !== undefined) s.lastStopReason = st.lastStopReason;
    s.config = { ...s.config, ...st.config };
    s.counters = new Map(Object.entries(st.counters ?? {}));
    s.history = st.history ?? [];
    return s;
  }

  configOptions() {
    const options = [
      {
        configId: "model",
        name: "Model",
        category: "model",
        type: "select",
        currentValue: this.config.model,
        options: [
          { value: "model-a", name: "Model A", description: "Small and quick" },
          { value: "model-b", name: "Model B", description: "Large; adds the effort option" },
        ],
      },
      { configId: "fast", name: "Fast mode", category: "model_config", type: "boolean", currentValue: this.config.fast },
    ];
    // Only model-b has an effort knob, so switching models changes the list's shape.
    if (this.config.model === "model-b") {
      options.push({
        configId: "effort",
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

  info() {
    const info = { sessionId: this.sessionId, cwd: this.cwd };
    if (this.additionalDirectories.length > 0) info.additionalDirectories = [...this.additionalDirectories];
    if (this.title !== undefined) info.title = this.title;
    if (this.updatedAt !== undefined) info.updatedAt = this.updatedAt;
    if (this.archived) info.archived = true;
    return info;
  }
}

const AVAILABLE_COMMANDS = [
  { type: "command", name: "web", description: "Search the web", input: { type: "text", hint: "query" } },
  { type: "command", name: "clear", description: "Clear the conversation" },
];

// Process-wide state: one peer per process (createPeer), shared by all its connections.
let opts; // readOptions() result, set by createPeer
let SESSION_CAPS; // the session capabilities --caps selects
let peerLog = () => {};
let onDetach; // server.mjs's hook for the "detach" script, if any
const log = (...parts) => peerLog(...parts);
const sessions = new Map(); // sessionId -> Session, in creation order
let sessionCounter = 0;
let elicitationCounter = 0;
let connectionCounter = 0;

// ---------------------------------------------------------------------------
// State directory (--state-dir): DIR/sessions.json, rewritten after every change.

const STATE_FORMAT = "libacp-ts-peer-state";
const STATE_VERSION = 1;
let stateFile; // DIR/sessions.json with --state-dir
let stateFrozen = false; // set at shutdown: what a dying turn does afterwards is not saved

function saveState() {
  if (!stateFile || stateFrozen) return;
  const state = {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    sessionCounter,
    sessions: [...sessions.values()].map((s) => s.toState()),
  };
  // Whole-file rewrite via rename: a reader (or a later process) never sees half a file.
  const tmp = `${stateFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2) + "\n");
  renameSync(tmp, stateFile);
}

function loadState() {
  if (!stateFile) return;
  mkdirSync(opts.stateDir, { recursive: true });
  if (!existsSync(stateFile)) {
    log(`state: ${stateFile} does not exist yet; starting empty`);
    return;
  }
  const state = JSON.parse(readFileSync(stateFile, "utf8"));
  if (state?.format !== STATE_FORMAT || state.version !== STATE_VERSION) {
    throw new Error(`${stateFile}: not a ${STATE_FORMAT} version ${STATE_VERSION} file`);
  }
  if (!Number.isInteger(state.sessionCounter) || state.sessionCounter < 0 || !Array.isArray(state.sessions)) {
    throw new Error(`${stateFile}: bad sessionCounter or sessions`);
  }
  let highest = state.sessionCounter;
  for (const st of state.sessions) {
    if (typeof st?.sessionId !== "string" || typeof st.cwd !== "string" || !Array.isArray(st.additionalDirectories) || !Array.isArray(st.history)) {
      throw new Error(`${stateFile}: malformed session entry ${JSON.stringify(st?.sessionId)}`);
    }
    if (sessions.has(st.sessionId)) throw new Error(`${stateFile}: duplicate session ${st.sessionId}`);
    sessions.set(st.sessionId, Session.fromState(st));
    const n = /^sess-(\d+)$/.exec(st.sessionId);
    if (n) highest = Math.max(highest, Number(n[1]));
  }
  // Never hand out an id again, even if the counter was edited by hand.
  sessionCounter = highest;
  log(`state: loaded ${sessions.size} session(s) from ${stateFile}, next id sess-${sessionCounter + 1}`);
}

function requireAuth(conn) {
  if (opts.authRequired && !conn.loggedIn) {
    throw acp.RequestError.authRequired({ authMethods: [AUTH_METHOD.methodId] }, "log in with auth/login first");
  }
}

/** The session, if it is open on `conn`: another connection has to session/resume it first. */
function activeSession(conn, sessionId) {
  const s = sessions.get(sessionId);
  if (!s || !s.active || s.deleted || s.conn !== conn) throw acp.RequestError.sessionNotFound(sessionId);
  return s;
}

async function emit(session, update, { store = true } = {}) {
  if (update.sessionUpdate === "session_info_update") {
    if ("title" in update) session.title = update.title ?? undefined;
    if ("updatedAt" in update) session.updatedAt = update.updatedAt ?? undefined;
  }
  if (store) session.remember(update);
  else if (update.sessionUpdate === "session_info_update") saveState();
  // Not attached (its connection closed): the update lives on in the replay history only.
  const conn = liveConnection(session);
  if (!conn) return;
  try {
    await conn.client.notify(acp.methods.client.session.update, { sessionId: session.sessionId, update });
  } catch (err) {
    // The connection went away under the send; the update is in the history.
    if (!conn.connection.signal.aborted) throw err;
  }
}

/** The open connection the session is attached to, or undefined. */
function liveConnection(session) {
  const conn = session.conn;
  return conn && !conn.closed ? conn : undefined;
}

function validateDirectories(params) {
  const dirs = params.additionalDirectories;
  if (dirs === undefined || dirs === null) return [];
  if (!SESSION_CAPS.additionalDirectories) {
    throw acp.RequestError.invalidParams({ field: "additionalDirectories" }, "additionalDirectories is not supported");
  }
  for (const d of dirs) {
    if (typeof d !== "string" || !d.startsWith("/")) {
      throw acp.RequestError.invalidParams({ path: d }, "additionalDirectories entries must be absolute");
    }
  }
  return [...dirs];
}

function validateCwd(cwd) {
  if (typeof cwd !== "string" || !cwd.startsWith("/")) {
    throw acp.RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  }
}

const PROMPT_GATES = { image: "image", audio: "audio", resource: "embeddedContext" };

function validatePrompt(prompt) {
  if (!Array.isArray(prompt) || prompt.length === 0) {
    throw acp.RequestError.invalidParams(undefined, "prompt must contain at least one content block");
  }
  for (const block of prompt) {
    const type = block?.type;
    if (type === "text" || type === "resource_link") continue;
    const gate = PROMPT_GATES[type];
    if (gate && SESSION_CAPS.prompt?.[gate]) continue;
    throw acp.RequestError.invalidParams({ type }, `unsupported prompt content block type '${type}'`);
  }
}

// ---------------------------------------------------------------------------
// Turns

class Turn {
  constructor(session) {
    this.session = session;
    this.controller = new AbortController();
    this.openToolCalls = new Set(); // created and not final: cancelled if the turn is
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  get signal() {
    return this.controller.signal;
  }

  check() {
    if (this.signal.aborted) throw new Cancelled();
  }

  async emit(update, options) {
    this.check();
    if (update.sessionUpdate === "tool_call_update") {
      if (update.status === "pending" || update.status === "in_progress") this.openToolCalls.add(update.toolCallId);
      if (["completed", "failed", "cancelled"].includes(update.status)) this.openToolCalls.delete(update.toolCallId);
    }
    await emit(this.session, update, options);
  }

  sleep(ms) {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) return reject(new Cancelled());
      const timer = setTimeout(() => {
        this.signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Cancelled());
      };
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The capabilities the client of the session's connection declared in `initialize`. */
  get clientCaps() {
    return this.session.conn?.clientCaps ?? {};
  }

  /** A notification to the client the session is attached to (dropped while it is attached to none). */
  async notify(method, params) {
    const conn = liveConnection(this.session);
    if (!conn) return;
    try {
      await conn.client.notify(method, params);
    } catch (err) {
      if (!conn.connection.signal.aborted) throw err; // else the connection just went away
    }
  }

  /** A plain request to the session's client; fails while the session is attached to none. */
  async clientRequest(method, params, options) {
    const conn = liveConnection(this.session);
    if (!conn) throw new Error(`session ${this.session.sessionId} is not attached to a connection`);
    return await conn.client.request(method, params, options);
  }

  /** A request to the client that session/cancel and session/close withdraw with $/cancel_request. */
  async request(method, params) {
    this.check();
    try {
      return await this.clientRequest(method, params, { cancellationSignal: this.signal, stopWaitingOnCancel: true });
    } catch (err) {
      if (this.signal.aborted) throw new Cancelled();
      throw err;
    }
  }
}

async function runTurn(session, turn, promptText) {
  const word = promptText.trim().split(/\s+/)[0].toLowerCase();
  const script = SCRIPTS[word] ?? echoScript;
  let stop;
  try {
    stop = (await script(turn, promptText)) ?? { stopReason: "end_turn" };
  } catch (err) {
    if (err instanceof Cancelled) {
      stop = { stopReason: "cancelled" };
    } else {
      log(`turn failed: ${err?.stack ?? err}`);
      stop = { stopReason: "error", error: { code: -32603, message: String(err?.message ?? err) } };
    }
  }
  try {
    // Final statuses come before the idle snapshot, as session/cancel requires.
    for (const toolCallId of turn.openToolCalls) {
      await emit(session, { sessionUpdate: "tool_call_update", toolCallId, status: "cancelled", capabilities: null });
    }
    session.lastStopReason = stop.stopReason;
    saveState();
    await emit(session, { sessionUpdate: "state_update", state: "idle", ...stop }, { store: false });
    // The "detach" script's effect (server.mjs marks the session) starts after its idle.
    if (turn.detachAfterIdle) onDetach?.(session.sessionId, session.conn?.transport);
  } catch (err) {
    log(`could not finish turn: ${err?.message ?? err}`);
  } finally {
    turn.finish();
    const next = session.held.shift();
    if (next) next.admit();
    else session.turn = null;
  }
}

function cancelForeground(session) {
  for (const held of session.held.splice(0)) held.reject(acp.RequestError.requestCancelled());
  if (session.turn) session.turn.controller.abort();
}

// --- scripts -----------------------------------------------------------------
// Each returns the idle stop ({stopReason, error?}) or undefined for end_turn.

async function echoScript(t, promptText) {
  const m = t.session.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text(`Echo: ${promptText.trim()}`) });
}

async function helloScript(t) {
  const m = t.session.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text("Hello") });
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text(", world!") });
}

// Bytes of the terminal output, split inside the 3-byte UTF-8 sequence of "✓" so
// clients must keep decoder state across chunks.
const TERMINAL_BYTES = Buffer.from("build: \u2713 ok\r\n", "utf8");
const TERMINAL_SPLIT = TERMINAL_BYTES.indexOf(0xe2) + 1;

async function toolScript(t) {
  const s = t.session;
  const path = `${s.cwd.replace(/\/$/, "")}/hello.txt`;
  const m1 = s.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m1, content: text("Let me ") });
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m1, content: text("edit hello.txt.") });
  const th = s.nextId("th");
  await t.emit({ sessionUpdate: "agent_thought_chunk", messageId: th, content: text("The greeting needs an exclamation mark.") });
  const tc = s.nextId("tc");
  await t.emit({
    sessionUpdate: "tool_call_update",
    toolCallId: tc,
    title: "Edit hello.txt",
    name: "edit_file",
    kind: "edit",
    status: "pending",
    locations: [{ path, line: 1 }],
    rawInput: { path, find: "Hello", replace: "Hello!" },
  });
  await t.emit({
    sessionUpdate: "tool_call_update",
    toolCallId: tc,
    status: "in_progress",
    capabilities: { cancel: {} },
    content: [
      {
        type: "diff",
        changes: [{ operation: "modify", path, fileType: "text", mimeType: "text/plain" }],
        patch: {
          format: "git_patch",
          text: `diff --git ${path} ${path}\n--- ${path}\n+++ ${path}\n@@ -1 +1 @@\n-Hello\n+Hello!\n`,
        },
      },
    ],
  });
  const term = s.nextId("term");
  await t.emit({ sessionUpdate: "tool_call_content_chunk", toolCallId: tc, content: { type: "terminal", terminalId: term } });
  await t.emit({
    sessionUpdate: "terminal_update",
    terminalId: term,
    command: "make check",
    cwd: s.cwd,
    size: { cols: 80, rows: 24 },
    output: { data: Buffer.from("$ make check\r\n").toString("base64") },
  });
  await t.emit({ sessionUpdate: "terminal_output_chunk", terminalId: term, data: TERMINAL_BYTES.subarray(0, TERMINAL_SPLIT).toString("base64") });
  await t.emit({ sessionUpdate: "terminal_output_chunk", terminalId: term, data: TERMINAL_BYTES.subarray(TERMINAL_SPLIT).toString("base64") });
  await t.emit({ sessionUpdate: "terminal_update", terminalId: term, exitStatus: { exitCode: 0 } });
  await t.emit({
    sessionUpdate: "tool_call_update",
    toolCallId: tc,
    status: "completed",
    capabilities: null,
    rawOutput: { ok: true },
  });
  const plan = s.nextId("plan");
  await t.emit({
    sessionUpdate: "plan_update",
    plan: {
      type: "items",
      planId: plan,
      entries: [
        { content: "Edit hello.txt", priority: "high", status: "completed" },
        { content: "Run the checks", priority: "medium", status: "completed" },
        { content: "Write a summary", priority: "low", status: "in_progress" },
      ],
    },
  });
  const m2 = s.nextId("m");
  await t.emit({ sessionUpdate: "agent_message", messageId: m2, content: [text("Done: hello.txt now says Hello!")] });
  await t.emit({ sessionUpdate: "usage_update", used: 1234, size: 200000, cost: { amount: 0.25, currency: "USD" } });
  await t.emit({ sessionUpdate: "session_info_update", title: "Edit hello.txt", updatedAt: FIXED_TIME });
}

// The conversation agent-v1.mjs plays in v1 shapes (no terminal, no structured diff,
// plan id "main"): both runs must leave the client with the same model.
async function workScript(t) {
  const s = t.session;
  const path = `${s.cwd.replace(/\/$/, "")}/hello.txt`;
  const m1 = s.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m1, content: text("Let me ") });
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m1, content: text("edit hello.txt.") });
  const th = s.nextId("th");
  await t.emit({ sessionUpdate: "agent_thought_chunk", messageId: th, content: text("The greeting needs an exclamation mark.") });
  const tc = s.nextId("tc");
  await t.emit({
    sessionUpdate: "tool_call_update",
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
  await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "completed", rawOutput: { ok: true } });
  await t.emit({
    sessionUpdate: "plan_update",
    plan: {
      type: "items",
      planId: "main",
      entries: [
        { content: "Edit hello.txt", priority: "high", status: "completed" },
        { content: "Run the checks", priority: "medium", status: "completed" },
        { content: "Write a summary", priority: "low", status: "in_progress" },
      ],
    },
  });
  const m2 = s.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m2, content: text("Done: hello.txt now says Hello!") });
  await t.emit({ sessionUpdate: "usage_update", used: 1234, size: 200000, cost: { amount: 0.25, currency: "USD" } });
  await t.emit({ sessionUpdate: "session_info_update", title: "Edit hello.txt", updatedAt: FIXED_TIME });
}

const PERMISSION_OPTIONS = [
  { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject-once", name: "Reject", kind: "reject_once" },
];

async function permissionScript(t) {
  const s = t.session;
  const m1 = s.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m1, content: text("I need to run a command.") });
  const tc = s.nextId("tc");
  const toolCall = {
    toolCallId: tc,
    title: "Run rm -rf build",
    name: "run_command",
    kind: "execute",
    status: "pending",
    rawInput: { command: "rm -rf build" },
  };
  // The subject creates the tool call on the client; history gets the equivalent
  // upsert so a replay still introduces it before its later updates.
  s.remember({ sessionUpdate: "tool_call_update", ...toolCall });
  t.openToolCalls.add(tc);
  await t.emit({ sessionUpdate: "state_update", state: "requires_action" }, { store: false });
  const response = await t.request(acp.methods.client.session.requestPermission, {
    sessionId: s.sessionId,
    title: "Allow running rm -rf build?",
    description: "The agent wants to delete the build directory.",
    subject: { type: "tool_call", toolCall },
    options: PERMISSION_OPTIONS,
  });
  await t.emit({ sessionUpdate: "state_update", state: "running" }, { store: false });
  const outcome = response.outcome;
  const chosen = outcome?.outcome === "selected" ? PERMISSION_OPTIONS.find((o) => o.optionId === outcome.optionId) : undefined;
  if (!chosen) {
    // cancelled, an unknown outcome or an id that was not offered: never approval.
    await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "cancelled" });
    return { stopReason: "cancelled" };
  }
  const m2 = s.nextId("m");
  if (chosen.kind.startsWith("allow")) {
    await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "in_progress" });
    await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "completed", rawOutput: { exitCode: 0 } });
    await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m2, content: text(`Permission granted (${chosen.optionId}); the command ran.`) });
  } else {
    await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "failed", rawOutput: { rejected: true } });
    await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m2, content: text(`Permission rejected (${chosen.optionId}); the command was skipped.`) });
  }
}

// Stable JSON with sorted keys, so the echoed form answer does not depend on the
// order in which the client serialized its object.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

const FORM_SCHEMA = {
  type: "object",
  title: "Project settings",
  properties: {
    name: { type: "string", title: "Project name", minLength: 1, default: "demo" },
    count: { type: "integer", title: "Worker count", minimum: 1, maximum: 10, default: 3 },
    debug: { type: "boolean", title: "Debug build", default: false },
    color: { type: "string", title: "Colour", enum: ["red", "green", "blue"] },
    targets: {
      type: "array",
      title: "Targets",
      items: { anyOf: [{ const: "linux", title: "Linux" }, { const: "mac", title: "macOS" }] },
    },
  },
  required: ["name"],
};

async function elicitFormScript(t) {
  const s = t.session;
  const m = s.nextId("m");
  if (!t.clientCaps.elicitation?.form) {
    await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text("The client does not support form elicitation.") });
    return;
  }
  await t.emit({ sessionUpdate: "state_update", state: "requires_action" }, { store: false });
  const response = await t.request(acp.methods.client.elicitation.create, {
    mode: "form",
    sessionId: s.sessionId,
    message: "Please configure the project.",
    requestedSchema: FORM_SCHEMA,
  });
  await t.emit({ sessionUpdate: "state_update", state: "running" }, { store: false });
  const action = typeof response.action === "string" ? response.action : "cancel";
  const content = action === "accept" ? ` ${canonical(response.content ?? {})}` : "";
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text(`Form result: ${action}${content}`) });
}

async function elicitUrlScript(t) {
  const s = t.session;
  const m = s.nextId("m");
  if (!t.clientCaps.elicitation?.url) {
    await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text("The client does not support URL elicitation.") });
    return;
  }
  const elicitationId = `elic-${++elicitationCounter}`;
  await t.emit({ sessionUpdate: "state_update", state: "requires_action" }, { store: false });
  const response = await t.request(acp.methods.client.elicitation.create, {
    mode: "url",
    sessionId: s.sessionId,
    message: "Sign in to the test service.",
    elicitationId,
    url: `https://example.com/login?session=${s.sessionId}`,
  });
  await t.emit({ sessionUpdate: "state_update", state: "running" }, { store: false });
  const action = typeof response.action === "string" ? response.action : "cancel";
  if (action === "accept") {
    await t.notify(acp.methods.client.elicitation.complete, { elicitationId });
  }
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text(`URL result: ${action}`) });
}

async function slowScript(t) {
  const s = t.session;
  const tc = s.nextId("tc");
  await t.emit({
    sessionUpdate: "tool_call_update",
    toolCallId: tc,
    title: "Long build",
    name: "build",
    kind: "execute",
    status: "in_progress",
    capabilities: { cancel: {} },
  });
  const m = s.nextId("m");
  for (let i = 1; i <= opts.slowTicks; i++) {
    await t.sleep(opts.slowMs);
    await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text(`tick ${i}\n`) });
  }
  if (t.openToolCalls.has(tc)) {
    await t.emit({ sessionUpdate: "tool_call_update", toolCallId: tc, status: "completed", capabilities: null });
  }
}

async function extScript(t) {
  const s = t.session;
  const m = s.nextId("m");
  let result;
  try {
    const answer = await t.request("_test/ping", { sessionId: s.sessionId, n: 1 });
    result = `ext result: ${canonical(answer)}`;
  } catch (err) {
    if (err instanceof Cancelled) throw err;
    result = `ext error: ${err?.code ?? "unknown"}`;
  }
  await t.notify("_test/notice", { sessionId: s.sessionId, text: "hello from the agent" });
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text(result) });
}

async function noticeScript(t) {
  // Notices are live-only: not stored, so never replayed.
  await t.emit({ sessionUpdate: "notice", severity: "warning", title: "Low disk space", description: "Only 1 GB left." }, { store: false });
  const m = t.session.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text("Noticed.") });
}

// "auth-update": an unsolicited auth/status_update (the unstable schema's notification,
// sent whatever --caps says: a client without the unstable opt-in must drop it).
async function authUpdateScript(t) {
  await t.notify("auth/status_update", { state: "unauthenticated", accounts: [{ label: "Pushed account", active: false }] });
  const m = t.session.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text("Auth state pushed.") });
}

async function failScript(t) {
  const m = t.session.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text("Something went wrong.") });
  return { stopReason: "error", error: { code: -32603, message: "Scripted failure" } };
}

// "flood-unknown N": N session/update notifications, each for a fresh random session id
// the client never opened (with 1 KiB of text each), then one message in the real session.
async function floodUnknownScript(t, promptText) {
  const count = Number(promptText.trim().split(/\s+/)[1] ?? "1000");
  const filler = "x".repeat(1024);
  for (let i = 0; i < count; i++) {
    const sessionId = `ghost-${Math.random().toString(36).slice(2)}-${i}`;
    await t.notify(acp.methods.client.session.update, {
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", messageId: "g1", content: text(filler) },
    });
  }
  const m = t.session.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text(`flooded ${count}`) });
}

// "permission-unknown": asks permission (and a form elicitation) for a session the client
// never opened and reports how the client answered.
async function permissionUnknownScript(t) {
  const answers = [];
  const ask = async (method, params) => {
    try {
      answers.push(`ok ${JSON.stringify(await t.clientRequest(method, params))}`);
    } catch (err) {
      answers.push(`error ${err?.code}`);
    }
  };
  await ask(acp.methods.client.session.requestPermission, {
    sessionId: "ghost-session",
    title: "Delete everything?",
    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
  });
  await ask(acp.methods.client.elicitation.create, {
    sessionId: "ghost-session",
    mode: "form",
    message: "Your password?",
    requestedSchema: { type: "object", properties: {} },
  });
  const m = t.session.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text(answers.join("; ")) });
}


// "split-surrogates": what a JavaScript agent sends when it cuts strings between the two
// halves of a UTF-16 surrogate pair (JSON.stringify writes each lone half as \udXXX).
async function splitSurrogatesScript(t) {
  const s = t.session;
  const smile = "\u{1F600}"; // two UTF-16 units: \uD83D \uDE00
  const high = smile.slice(0, 1);
  const low = smile.slice(1);
  const m1 = s.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m1, content: text(`Smile ${high}`) });
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m1, content: text(`${low} done`) });
  const m2 = s.nextId("m");
  await t.emit({ sessionUpdate: "agent_thought_chunk", messageId: m2, content: text(`a${high}b ${low} c`) });
  await t.emit({ sessionUpdate: "tool_call_update", toolCallId: `tc-${high}`, title: `T${low}`, status: "completed" });
  const m3 = s.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m3, content: text(`cut ${high}`) });
  await t.emit({ sessionUpdate: "session_info_update", title: `${low}title${high}` });
  const m4 = s.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m4, content: text(`${low} orphan`) });
}

// "flood N" (default 1000): N agent_message_chunk "tok " of one message as fast as the
// SDK takes them, for the per-transport benchmark.
async function floodScript(t, promptText) {
  const count = countArgument(promptText, 1000);
  const m = t.session.nextId("m");
  for (let i = 0; i < count; i++) {
    await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text("tok ") });
  }
}

// "big N" (default 1 MiB): one agent_message_chunk whose text is N bytes of "x", to push a
// single message over a client's size cap.
async function bigScript(t, promptText) {
  const size = countArgument(promptText, 1024 * 1024);
  const m = t.session.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text("x".repeat(size)) });
}

// "detach": an ordinary turn; after its idle snapshot server.mjs answers this session's
// HTTP requests 409 until it is resumed or loaded (no effect over stdio or WebSocket).
async function detachScript(t) {
  const m = t.session.nextId("m");
  await t.emit({ sessionUpdate: "agent_message_chunk", messageId: m, content: text("Detaching this session.") });
  t.detachAfterIdle = true;
}

/** The prompt's second word as a non-negative integer, or `fallback` if there is none. */
function countArgument(promptText, fallback) {
  const word = promptText.trim().split(/\s+/)[1];
  if (word === undefined) return fallback;
  const n = Number(word);
  if (!Number.isInteger(n) || n < 0) throw new Error(`not a count: ${word}`);
  return n;
}

const SCRIPTS = {
  flood: floodScript,
  big: bigScript,
  detach: detachScript,
  "split-surrogates": splitSurrogatesScript,
  "flood-unknown": floodUnknownScript,
  "permission-unknown": permissionUnknownScript,
  hello: helloScript,
  tool: toolScript,
  work: workScript,
  permission: permissionScript,
  "elicit-form": elicitFormScript,
  "elicit-url": elicitUrlScript,
  slow: slowScript,
  ext: extScript,
  notice: noticeScript,
  "auth-update": authUpdateScript,
  fail: failScript,
};

// ---------------------------------------------------------------------------
// Handlers

/** The agent app for one connection: handlers over the shared sessions, with `conn`'s own login and capabilities. */
function buildApp(conn) {
  const app = (opts.caps === "unstable" ? acpUnstable : acp).agent({ name: "libacp-ts-peer" });
  const m = acp.methods.agent;

  app.onRequest(m.initialize, async ({ params }) => {
    if (opts.rejectVersion) {
      throw acp.RequestError.unsupportedProtocolVersion(params.protocolVersion, [1]);
    }
    conn.clientCaps = params.capabilities ?? {};
    const response = {
      protocolVersion: 2,
      info: AGENT_INFO,
      capabilities: SESSION_CAPS ? { session: SESSION_CAPS } : {},
    };
    if (opts.caps === "unstable") {
      response.capabilities.auth = { status: {} };
      response.capabilities.providers = {};
    }
    if (opts.authRequired) response.authMethods = [AUTH_METHOD];
    return response;
  });

  if (opts.authRequired) {
    app.onRequest(m.auth.login, async ({ params }) => {
      if (params.methodId !== AUTH_METHOD.methodId) {
        throw acp.RequestError.invalidParams({ methodId: params.methodId }, "unknown auth method");
      }
      conn.loggedIn = true;
      return {};
    });
    app.onRequest(m.auth.logout, async () => {
      conn.loggedIn = false;
      return {};
    });
  }

  if (SESSION_CAPS) {
    app.onRequest(m.session.new, async ({ params }) => {
      requireAuth(conn);
      validateCwd(params.cwd);
      const dirs = validateDirectories(params);
      acp.assertSupportedMcpServers(params.mcpServers, SESSION_CAPS.mcp);
      const s = new Session(`sess-${++sessionCounter}`, params.cwd, dirs);
      s.conn = conn;
      if (params.systemPrompt) s.systemPrompt = validateSystemPrompt(params.systemPrompt);
      sessions.set(s.sessionId, s);
      saveState();
      return { sessionId: s.sessionId, configOptions: s.configOptions(), availableCommands: AVAILABLE_COMMANDS };
    });

    app.onRequest(m.session.list, async ({ params }) => {
      requireAuth(conn);
      let all = [...sessions.values()].filter((s) => !s.deleted);
      // The unstable `archived` filter: exclude (the default), include, only.
      const archived = params.archived ?? "exclude";
      if (archived === "exclude") all = all.filter((s) => !s.archived);
      else if (archived === "only") all = all.filter((s) => s.archived);
      if (params.cwd !== undefined && params.cwd !== null) all = all.filter((s) => s.cwd === params.cwd);
      // --empty-cursor: "" names the second page (an empty string is a valid cursor).
      const cursorFor = (offset) =>
        opts.emptyCursor && offset === opts.pageSize ? "" : Buffer.from(`page:${offset}`).toString("base64url");
      let offset = 0;
      if (params.cursor !== undefined && params.cursor !== null) {
        const match = /^page:(\d+)$/.exec(Buffer.from(params.cursor, "base64url").toString("utf8"));
        if (opts.emptyCursor && params.cursor === "") offset = opts.pageSize;
        else if (!match) throw acp.RequestError.invalidParams({ cursor: params.cursor }, "unknown cursor");
        else offset = Number(match[1]);
      }
      const page = all.slice(offset, offset + opts.pageSize);
      const response = { sessions: page.map((s) => s.info()) };
      if (offset + opts.pageSize < all.length) response.nextCursor = cursorFor(offset + opts.pageSize);
      else if (opts.emptyCursor) response.nextCursor = null;
      return response;
    });

    app.onRequest(m.session.resume, async ({ params }) => {
      requireAuth(conn);
      const s = sessions.get(params.sessionId);
      if (!s || s.deleted) throw acp.RequestError.sessionNotFound(params.sessionId);
      validateCwd(params.cwd);
      if (params.cwd !== s.cwd) {
        throw acp.RequestError.invalidParams({ cwd: params.cwd }, "cwd does not match the session's working directory");
      }
      const dirs = validateDirectories(params);
      acp.assertSupportedMcpServers(params.mcpServers, SESSION_CAPS.mcp);
      const replayFrom = params.replayFrom ?? null;
      if (replayFrom !== null && replayFrom.type !== "start") {
        throw acp.RequestError.invalidParams({ replayFrom }, "unsupported replay cursor");
      }
      s.additionalDirectories = dirs;
      if (params.systemPrompt) s.systemPrompt = validateSystemPrompt(params.systemPrompt);
      s.active = true;
      saveState();
      // A resume from another connection (or of a session attached to none) takes the
      // session over. Until the replay has caught up, a turn still running there only
      // adds to the history, which this loop also sends: each update arrives once, in order.
      if (s.conn !== conn) s.conn = null;
      if (replayFrom) {
        for (let i = 0; i < s.history.length; i++) {
          await conn.client.notify(acp.methods.client.session.update, { sessionId: s.sessionId, update: structuredClone(s.history[i]) });
        }
      }
      s.conn = conn;
      const snapshot = s.turn
        ? { sessionUpdate: "state_update", state: "running" }
        : { sessionUpdate: "state_update", state: "idle", ...(s.lastStopReason ? { stopReason: s.lastStopReason } : {}) };
      await emit(s, snapshot, { store: false });
      return { configOptions: s.configOptions(), availableCommands: AVAILABLE_COMMANDS };
    });

    app.onRequest(m.session.close, async ({ params }) => {
      const s = sessions.get(params.sessionId);
      if (!s && opts.unknownSessionErrors) throw acp.RequestError.sessionNotFound(params.sessionId);
      if (!s || !s.active) return {};
      const turn = s.turn;
      cancelForeground(s);
      if (turn) await turn.done;
      s.active = false;
      return {};
    });

    if (SESSION_CAPS.delete) {
      app.onRequest(m.session.delete, async ({ params }) => {
        const s = sessions.get(params.sessionId);
        if (!s && opts.unknownSessionErrors) throw acp.RequestError.sessionNotFound(params.sessionId);
        if (!s) return {};
        const turn = s.turn;
        cancelForeground(s);
        if (turn) await turn.done;
        s.active = false;
        s.deleted = true;
        saveState();
        return {};
      });
    }

    app.onRequest(m.session.setConfigOption, async ({ params }) => {
      requireAuth(conn);
      const s = activeSession(conn, params.sessionId);
      const option = s.configOptions().find((o) => o.configId === params.configId);
      if (!option) throw acp.RequestError.invalidParams({ configId: params.configId }, "unknown config option");
      if (option.type === "select") {
        if (params.type !== "id" || typeof params.value !== "string") {
          throw acp.RequestError.invalidParams({ configId: params.configId }, "select options take {type:'id'}");
        }
        if (!option.options.some((o) => o.value === params.value)) {
          throw acp.RequestError.invalidParams({ configId: params.configId, value: params.value }, "value is not one of the option's values");
        }
      } else if (params.type !== "boolean" || typeof params.value !== "boolean") {
        throw acp.RequestError.invalidParams({ configId: params.configId }, "boolean options take {type:'boolean'}");
      }
      s.config[params.configId] = params.value;
      // Leaving model-b drops its effort knob back to the default.
      if (params.configId === "model" && params.value === "model-a") s.config.effort = "medium";
      saveState();
      return { configOptions: s.configOptions() };
    });

    app.onRequest(m.session.prompt, async ({ params, signal, requestId }) => {
      requireAuth(conn);
      const s = activeSession(conn, params.sessionId);
      validatePrompt(params.prompt);
      if (s.turn) {
        // Held until the running turn ends; withdrawn by $/cancel_request,
        // answered -32800 by session/cancel or session/close.
        await new Promise((admit, reject) => {
          // Withdrawn before this handler ran: the signal fires no event any more.
          if (signal.aborted) return reject(acp.RequestError.requestCancelled());
          const held = { admit, reject };
          s.held.push(held);
          signal.addEventListener(
            "abort",
            () => {
              const i = s.held.indexOf(held);
              if (i >= 0) {
                s.held.splice(i, 1);
                reject(acp.RequestError.requestCancelled());
              }
            },
            { once: true },
          );
        });
        if (!s.active) throw acp.RequestError.requestCancelled();
      }
      const turn = new Turn(s);
      s.turn = turn;
      await emit(s, { sessionUpdate: "state_update", state: "running" }, { store: false });
      const messageId = s.nextId("u");
      await emit(s, { sessionUpdate: "user_message", messageId, content: params.prompt });
      const promptText = params.prompt
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join(" ");
      void whenResponseSent(conn, requestId).then(() => runTurn(s, turn, promptText));
      return { messageId };
    });

    app.onNotification(m.session.cancel, async ({ params }) => {
      const s = sessions.get(params.sessionId);
      if (s) cancelForeground(s);
    });

    app.onRequest(m.toolCall.cancel, async ({ params, requestId }) => {
      const s = activeSession(conn, params.sessionId);
      const turn = s.turn;
      // Only the slow script keeps a tool call cancellable long enough to matter.
      if (!turn || !turn.openToolCalls.has(params.toolCallId)) {
        throw acp.RequestError.invalidParams({ toolCallId: params.toolCallId }, "the tool call is unknown or not cancellable");
      }
      turn.openToolCalls.delete(params.toolCallId);
      // The empty response means "accepted"; the final status confirms it afterwards.
      void whenResponseSent(conn, requestId).then(() =>
        emit(s, { sessionUpdate: "tool_call_update", toolCallId: params.toolCallId, status: "cancelled", capabilities: null }).catch((err) =>
          log(`tool_call/cancel confirmation failed: ${err?.message ?? err}`),
        ),
      );
      return {};
    });
  }

  if (opts.caps === "unstable") unstableHandlers(app, conn);

  // Extension request from the client: answered with its own params.
  app.onRequest("_test/echo", (params) => params, async ({ params }) => params ?? {});
  // Extension notification from the client: only logged (it is also in --record).
  app.onNotification("_test/note", (params) => params, async ({ params }) => {
    log(`_test/note ${JSON.stringify(params)}`);
  });
  return app;
}

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

/** The unstable schema's methods (--caps=unstable), each on the SDK's own handler. */
function unstableHandlers(app, conn) {
  const m = acpUnstable.methods.agent;
  const known = (sessionId) => {
    const s = sessions.get(sessionId);
    if (!s || s.deleted) throw acp.RequestError.sessionNotFound(sessionId);
    return s;
  };

  // A new, independent session with a copy of the source's history, active at once.
  app.onRequest(m.session.fork, async ({ params }) => {
    requireAuth(conn);
    const source = known(params.sessionId);
    validateCwd(params.cwd);
    const dirs = validateDirectories(params);
    acp.assertSupportedMcpServers(params.mcpServers, SESSION_CAPS.mcp);
    const s = new Session(`sess-${++sessionCounter}`, params.cwd, dirs);
    s.history = structuredClone(source.history);
    s.counters = new Map(source.counters);
    s.config = { ...source.config };
    s.systemPrompt = params.systemPrompt ? validateSystemPrompt(params.systemPrompt) : source.systemPrompt;
    s.conn = conn;
    sessions.set(s.sessionId, s);
    saveState();
    return { sessionId: s.sessionId, configOptions: s.configOptions(), availableCommands: AVAILABLE_COMMANDS };
  });

  app.onRequest(m.session.archive, async ({ params }) => {
    const s = known(params.sessionId);
    if (s.active) {
      const turn = s.turn;
      cancelForeground(s);
      if (turn) await turn.done;
      s.active = false;
    }
    s.archived = true;
    saveState();
    return {};
  });

  app.onRequest(m.session.unarchive, async ({ params }) => {
    const s = known(params.sessionId);
    s.archived = false;
    saveState();
    return {};
  });

  app.onRequest(m.session.status, async ({ params }) => {
    const s = known(params.sessionId);
    if (!s.active) return { status: "saved" };
    const state = s.turn ? { state: "running" } : { state: "idle", ...(s.lastStopReason ? { stopReason: s.lastStopReason } : {}) };
    return { status: "open", state };
  });

  // Titles are stored trimmed; the answer carries the stored one.
  app.onRequest(m.session.setTitle, async ({ params }) => {
    const s = known(params.sessionId);
    const title = params.title.trim();
    if (title === "") throw acp.RequestError.invalidParams({ title: params.title }, "empty title");
    s.title = title;
    saveState();
    return { title };
  });

  // After each auth/status answer the agent also pushes the state once (auth/status_update).
  app.onRequest(m.auth.status, async ({ requestId }) => {
    const state = opts.authRequired && !conn.loggedIn ? "unauthenticated" : "authenticated";
    void whenResponseSent(conn, requestId).then(() =>
      conn.client.notify(acpUnstable.methods.client.auth.statusUpdate, { state }).catch((err) =>
        log(`auth/status_update failed: ${err?.message ?? err}`),
      ),
    );
    return { state, accounts: [{ label: "Test account", active: true }] };
  });

  const providers = initialProviders();
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

// ---------------------------------------------------------------------------
// Connections

const idKey = (id) => JSON.stringify(id);

/** Resolves once the response to the client's request `id` has been handed to the connection's stream. */
function whenResponseSent(conn, id) {
  return new Promise((resolve) => conn.responseWaiters.set(idKey(id), resolve));
}

function onOutgoing(conn, msg) {
  if (msg && msg.method === undefined && ("result" in msg || "error" in msg)) {
    const key = idKey(msg.id);
    const waiter = conn.responseWaiters.get(key);
    if (waiter) {
      conn.responseWaiters.delete(key);
      // Let the write reach the stream queue before the turn starts writing.
      queueMicrotask(waiter);
    }
  }
}

// Answers `initialize` outside the SDK for the version-negotiation scenarios the
// SDK's v2 API cannot produce (any protocolVersion other than 2 in a result).
function interceptInitialize(msg, send) {
  if (msg.method !== "initialize" || msg.id === undefined) return false;
  if (opts.silentInitialize) {
    log("initialize left unanswered (--silent-initialize)");
    return true;
  }
  const requested = msg.params?.protocolVersion;
  let answerVersion;
  if (opts.protocolVersion !== undefined && opts.protocolVersion !== 2) answerVersion = opts.protocolVersion;
  else if (opts.rejectVersion && requested === 1) answerVersion = 1;
  else return false;
  const result =
    answerVersion === 1
      ? {
          protocolVersion: 1,
          agentCapabilities: { loadSession: false, promptCapabilities: {}, mcpCapabilities: {} },
          agentInfo: { name: AGENT_INFO.name, version: AGENT_INFO.version },
          authMethods: [],
        }
      : {
          protocolVersion: answerVersion,
          info: AGENT_INFO,
          capabilities: SESSION_CAPS ? { session: SESSION_CAPS } : {},
        };
  log(`initialize answered outside the SDK with protocolVersion ${answerVersion}`);
  void send({ jsonrpc: "2.0", id: msg.id, result });
  return true;
}

/**
 * Serves one client connection on `stream`, the SDK's message-level Stream
 * ({readable, writable} of JSON-RPC objects): ndJsonStream over stdio, or the stream
 * AcpServer hands an agent for each HTTP or WebSocket connection. Returns the SDK's
 * AgentConnection.
 *   connectOptions  passed on to AgentApp.connect (AcpServer defers connect handlers)
 *   record(dir, msg, conn)  sees every message the agent receives ("in", before the
 *                   initialize interception) and sends ("out"), in that order
 *   transport       a label for logs and records ("stdio", "http", "ws")
 *   onConnection(conn)  called at once with the connection's record ({id, transport, ...};
 *                   ids count 1, 2, ... per process)
 *   onClosed(conn, error)  called first when the connection has closed
 * When the connection closes, its sessions stay (attached to none) and prompts it left
 * held are answered -32800; any connection can session/resume them.
 */
function connect(stream, connectOptions = {}, { record, transport = "stdio", onConnection, onClosed } = {}) {
  const conn = {
    id: ++connectionCounter,
    transport,
    connection: undefined, // the SDK's AgentConnection
    client: undefined, // its AgentContext
    clientCaps: {}, // from this connection's initialize
    loggedIn: false,
    closed: false,
    responseWaiters: new Map(), // JSON-encoded request id -> resolve()
  };
  onConnection?.(conn);
  const writer = stream.writable.getWriter();
  const send = (msg) => {
    record?.("out", msg, conn);
    onOutgoing(conn, msg);
    return writer.write(msg);
  };
  const sdkStream = {
    readable: stream.readable.pipeThrough(
      new TransformStream({
        transform(msg, controller) {
          record?.("in", msg, conn);
          if (!interceptInitialize(msg, send)) controller.enqueue(msg);
        },
      }),
    ),
    writable: new WritableStream({
      write(msg) {
        return send(msg);
      },
    }),
  };
  const connection = buildApp(conn).connect(sdkStream, connectOptions);
  conn.connection = connection;
  conn.client = connection.client;
  const closed = (error) => {
    conn.closed = true;
    onClosed?.(conn, error);
    for (const s of sessions.values()) {
      if (s.conn !== conn) continue;
      s.conn = null;
      for (const held of s.held.splice(0)) held.reject(acp.RequestError.requestCancelled());
    }
  };
  connection.closed.then(
    () => closed(undefined),
    (err) => closed(err ?? new Error("connection failed")),
  );
  return connection;
}

/** Stops saving state and cancels every running turn: the process is about to exit. */
function freeze() {
  stateFrozen = true;
  for (const s of sessions.values()) if (s.turn) s.turn.controller.abort();
}

/**
 * Creates the process's peer (once per process): applies `options` (readOptions'
 * result) and loads --state-dir. Throws if the state file cannot be loaded.
 *   log(...parts)        diagnostics (stderr)
 *   onDetach(sessionId, transport)  called after a "detach" turn's idle snapshot, with the
 *                        transport of the session's connection (undefined if none)
 */
export function createPeer(options, { log: logFn, onDetach: detachHook } = {}) {
  if (opts) throw new Error("createPeer: there is one peer per process");
  opts = options;
  SESSION_CAPS = sessionCapabilities(opts.caps);
  peerLog = logFn ?? (() => {});
  onDetach = detachHook;
  stateFile = opts.stateDir ? join(opts.stateDir, "sessions.json") : undefined;
  loadState();
  return {
    connect,
    freeze,
    /** An AgentConnector for AcpServer: each connection it accepts is served by connect(). */
    connector: (meta = {}) => ({ connect: (stream, connectOptions) => connect(stream, connectOptions, meta) }),
  };
}
