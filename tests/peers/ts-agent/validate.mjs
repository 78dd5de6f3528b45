#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// Validates recorded ACP v2 traffic against the pinned JSON schema.
//
//   node validate.mjs [--schema=PATH] [--agent] FILE
//
// FILE holds one JSON value per line, either
//   - a tagged record written by `agent.mjs --record=FILE`: {"dir":"in"|"out","msg":{...}}
//     ("in" = sent by the client, "out" = sent by the agent; "raw" instead of "msg"
//     marks a line that was not JSON); records from `server.mjs --record=FILE` also carry
//     "conn" (the connection's number: requests and answers are paired per connection)
//     and "http" (a POST the server answered itself; the message is still checked), or
//   - a bare JSON-RPC message, taken as sent by the client.
//
// Every client message is checked; with --agent the agent's messages are checked too.
// A message is checked twice: its envelope against the schema's ClientRequest /
// ClientNotification / ClientResponse (AgentRequest / ... for the agent) definitions,
// and its params or result against the `$defs` type whose x-method / x-side
// annotations name that method. Responses are matched to the peer's request by id
// (only possible with "out" records), which also catches answers to unknown ids and
// second answers. Prints one line per invalid message, then a summary; exits 1 if any
// message (or line) is invalid, 2 on usage errors.
//
// --schema defaults to ../../../schema/v2/schema.json relative to this
// script, i.e. the shared/ folder that sits beside the repository checkout.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));

function usage(message) {
  process.stderr.write(`validate: ${message}\nusage: node validate.mjs [--schema=PATH] [--agent] FILE\n`);
  process.exit(2);
}

let schemaPath = resolve(here, "../../../schema/v2/schema.json");
let checkAgent = false;
const files = [];
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith("--schema=")) schemaPath = resolve(arg.slice("--schema=".length));
  else if (arg === "--agent") checkAgent = true;
  else if (arg.startsWith("--")) usage(`unknown option ${arg}`);
  else files.push(arg);
}
if (files.length !== 1) usage("exactly one FILE is required");

let schema;
try {
  schema = JSON.parse(readFileSync(schemaPath, "utf8"));
} catch (err) {
  usage(`cannot read schema ${schemaPath}: ${err.message}`);
}

// ---------------------------------------------------------------------------
// Ajv setup

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
// Rust-flavoured numeric formats used by the generated schema; ajv does not know them.
const intRange = (min, max) => ({ type: "number", validate: (n) => Number.isInteger(n) && n >= min && n <= max });
ajv.addFormat("int32", intRange(-(2 ** 31), 2 ** 31 - 1));
ajv.addFormat("uint16", intRange(0, 2 ** 16 - 1));
ajv.addFormat("uint32", intRange(0, 2 ** 32 - 1));
// 64-bit bounds as doubles: JSON numbers beyond them cannot be 64-bit integers.
ajv.addFormat("int64", intRange(-(2 ** 63), 2 ** 63));
ajv.addFormat("uint64", intRange(0, 2 ** 64));
ajv.addFormat("double", { type: "number", validate: (n) => Number.isFinite(n) });

const SCHEMA_KEY = "acp-v2";
ajv.addSchema(schema, SCHEMA_KEY);
// A client that falls back to v1 (CLIENT-GUIDE 2.2) sends a v1 initialize: it is checked
// against the v1 schema beside the v2 one, as a v1 agent would read it.
const V1_SCHEMA_KEY = "acp-v1";
let v1Schema;
try {
  v1Schema = JSON.parse(readFileSync(resolve(dirname(schemaPath), "../v1/schema.json"), "utf8"));
  ajv.addSchema(v1Schema, V1_SCHEMA_KEY);
} catch {
  v1Schema = undefined;
}
const compiled = new Map();
function validatorFor(defName) {
  if (!compiled.has(defName)) {
    if (!schema.$defs?.[defName]) throw new Error(`schema has no $defs/${defName}`);
    compiled.set(defName, ajv.compile({ $ref: `${SCHEMA_KEY}#/$defs/${defName}` }));
  }
  return compiled.get(defName);
}

// Method tables from the x-method / x-side annotations: x-side names the side that
// handles the method, so the other side is the one that may send it.
const methods = { agent: new Map(), client: new Map(), protocol: new Map() };
for (const [name, def] of Object.entries(schema.$defs ?? {})) {
  const method = def["x-method"];
  const side = def["x-side"];
  if (!method || !methods[side]) continue;
  const entry = methods[side].get(method) ?? {};
  for (const kind of ["Request", "Response", "Notification"]) {
    if (name.endsWith(kind)) entry[kind.toLowerCase()] = name;
  }
  methods[side].set(method, entry);
}

// ---------------------------------------------------------------------------
// Checking

function formatErrors(errors) {
  if (!errors?.length) return "";
  // anyOf unions produce one error per rejected branch, mostly "wrong tag" noise
  // (const / anyOf / not); keep the substantive ones when there are any.
  const noise = new Set(["const", "anyOf", "oneOf", "not", "if"]);
  const substantive = errors.filter((e) => !noise.has(e.keyword));
  const picked = substantive.length > 0 ? substantive : errors;
  const all = [...new Set(picked.map((e) => `${e.instancePath || "/"} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""}`))];
  const shown = all.slice(0, 8);
  if (all.length > shown.length) shown.push(`(+${all.length - shown.length} more)`);
  return shown.join("; ");
}

function validate(defName, value, where) {
  const v = validatorFor(defName);
  return v(value) ? [] : [`${where} is not a valid ${defName}: ${formatErrors(v.errors)}`];
}

function validateV1(defName, value, where) {
  if (!v1Schema?.$defs?.[defName]) return [`${where}: no v1 schema (schema/v1/schema.json) to check it against`];
  const key = `v1:${defName}`;
  if (!compiled.has(key)) compiled.set(key, ajv.compile({ $ref: `${V1_SCHEMA_KEY}#/$defs/${defName}` }));
  const v = compiled.get(key);
  return v(value) ? [] : [`${where} is not a valid v1 ${defName}: ${formatErrors(v.errors)}`];
}

const isExtension = (method) => typeof method === "string" && method.startsWith("_");

class Peer {
  constructor(sender) {
    this.sender = sender; // "client" | "agent"
    this.receiver = sender === "client" ? "agent" : "client";
    this.envelope = sender === "client" ? "Client" : "Agent";
    this.pending = new Map(); // requests this peer received, awaiting its answer: key -> method
    this.answered = new Set();
    this.sawPeerRequests = false;
  }

  /** Remembers a request the other side sent, so this side's answer can be matched. */
  noteIncomingRequest(msg) {
    if (msg && typeof msg === "object" && typeof msg.method === "string" && msg.id !== undefined) {
      this.pending.set(JSON.stringify(msg.id), msg.method);
      this.sawPeerRequests = true;
    }
  }

  check(msg) {
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      return ["message is not a JSON object (JSON-RPC batches are not used by ACP)"];
    }
    const problems = [];
    if (msg.jsonrpc !== "2.0") problems.push(`"jsonrpc" must be "2.0"`);
    const hasId = Object.hasOwn(msg, "id");
    if (typeof msg.method === "string") {
      if (hasId) problems.push(...this.checkRequest(msg));
      else problems.push(...this.checkNotification(msg));
    } else if (Object.hasOwn(msg, "result") || Object.hasOwn(msg, "error")) {
      problems.push(...this.checkResponse(msg));
    } else {
      problems.push("neither a request, a notification nor a response");
    }
    return problems;
  }

  checkRequest(msg) {
    if (this.sender === "client" && msg.method === "initialize" && msg.params?.protocolVersion === 1) {
      return [...validateV1("ClientRequest", msg, "envelope"), ...validateV1("InitializeRequest", msg.params, "params of initialize")];
    }
    const problems = validate(`${this.envelope}Request`, msg, "envelope");
    const params = msg.params ?? {};
    if (isExtension(msg.method)) return problems;
    const entry = methods[this.receiver].get(msg.method);
    if (!entry?.request) {
      const kind = entry?.notification ? "a notification, sent as a request" : `not a ${this.receiver} method of ACP v2`;
      return [...problems, `method ${msg.method} is ${kind}`];
    }
    return [...problems, ...validate(entry.request, params, `params of ${msg.method}`)];
  }

  checkNotification(msg) {
    const protocolEntry = methods.protocol.get(msg.method);
    const problems = protocolEntry ? [] : validate(`${this.envelope}Notification`, msg, "envelope");
    const params = msg.params ?? {};
    if (isExtension(msg.method)) return problems;
    const entry = protocolEntry ?? methods[this.receiver].get(msg.method);
    if (!entry?.notification) {
      const kind = entry?.request ? "a request, sent without an id" : `not a ${this.receiver} notification of ACP v2`;
      return [...problems, `method ${msg.method} is ${kind}`];
    }
    return [...problems, ...validate(entry.notification, params, `params of ${msg.method}`)];
  }

  checkResponse(msg) {
    const problems = validate(`${this.envelope}Response`, msg, "envelope");
    if (Object.hasOwn(msg, "result") && Object.hasOwn(msg, "error")) problems.push("has both result and error");
    const key = JSON.stringify(msg.id);
    if (this.answered.has(key)) return [...problems, `second response to request id ${key}`];
    const method = this.pending.get(key);
    if (method === undefined) {
      // Without the peer's side of the recording the envelope check is all we can do.
      if (this.sawPeerRequests) problems.push(`response to id ${key}, which the peer never sent or already saw answered`);
      return problems;
    }
    this.pending.delete(key);
    this.answered.add(key);
    if (!Object.hasOwn(msg, "result") || isExtension(method)) return problems;
    const entry = methods[this.sender].get(method);
    if (entry?.response) problems.push(...validate(entry.response, msg.result, `result for ${method}`));
    return problems;
  }
}

// ---------------------------------------------------------------------------
// Main

// One pair of peers per connection ("conn" of server.mjs records; absent = one connection),
// since each connection numbers its requests on its own.
const peersByConnection = new Map();
function peersOf(conn) {
  const key = conn === undefined ? "" : JSON.stringify(conn);
  if (!peersByConnection.has(key)) peersByConnection.set(key, { client: new Peer("client"), agent: new Peer("agent") });
  return peersByConnection.get(key);
}
let total = 0;
let invalid = 0;

function describe(msg) {
  if (!msg || typeof msg !== "object") return "";
  if (typeof msg.method === "string") return msg.id !== undefined ? `${msg.method} (id ${JSON.stringify(msg.id)})` : msg.method;
  return `response (id ${JSON.stringify(msg.id)})`;
}

function report(lineNo, who, msg, problems) {
  total++;
  if (problems.length === 0) return;
  invalid++;
  process.stdout.write(`line ${lineNo}: INVALID ${who} ${describe(msg)}: ${problems.join(" | ")}\n`);
}

let text;
try {
  text = readFileSync(files[0], "utf8");
} catch (err) {
  usage(`cannot read ${files[0]}: ${err.message}`);
}

const lines = text.split("\n");
lines.forEach((line, index) => {
  const lineNo = index + 1;
  if (line.trim() === "") return;
  let value;
  try {
    value = JSON.parse(line);
  } catch (err) {
    report(lineNo, "line", undefined, [`not JSON: ${err.message}`]);
    return;
  }
  // {"dir":"log",...}: a host's own note in the same file (acp-chat's log records), no message.
  if (value && typeof value === "object" && !Array.isArray(value) && value.dir === "log") return;
  const tagged = value && typeof value === "object" && !Array.isArray(value) && (value.dir === "in" || value.dir === "out") && ("msg" in value || "raw" in value);
  const dir = tagged ? value.dir : "in";
  const sender = dir === "in" ? "client" : "agent";
  if (tagged && !("msg" in value)) {
    if (sender === "client" || checkAgent) report(lineNo, sender, undefined, [`not JSON: ${JSON.stringify(value.raw).slice(0, 200)}`]);
    return;
  }
  const msg = tagged ? value.msg : value;
  const peers = peersOf(tagged ? value.conn : undefined);
  const self = sender === "client" ? peers.client : peers.agent;
  const other = sender === "client" ? peers.agent : peers.client;
  const problems = self.check(msg);
  other.noteIncomingRequest(msg);
  if (sender === "client" || checkAgent) report(lineNo, sender, msg, problems);
});

const scope = checkAgent ? "messages" : "client messages";
process.stdout.write(`validate: checked ${total} ${scope}, ${total - invalid} valid, ${invalid} invalid\n`);
process.exit(invalid > 0 ? 1 : 0);
