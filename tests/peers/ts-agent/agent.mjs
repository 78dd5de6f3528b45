#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// libacp test peer: a scripted ACP v2 agent built on the official TypeScript SDK
// (@agentclientprotocol/sdk 2.4.0, entry point "experimental/v2").
//
// The C++ integration tests spawn it as `node tests/peers/ts-agent/agent.mjs [options]`
// and speak newline-delimited JSON-RPC over its stdin/stdout. Everything it does is
// deterministic (fixed ids, fixed texts, fixed timestamps) so tests can assert exact
// traffic. stdout carries ACP messages only; diagnostics go to stderr. It exits 0 when
// stdin reaches EOF.
//
// Options (flag, or the environment variable in brackets; flags win):
//   --caps=full|none|stdio-only|http-only|unstable [ACP_PEER_CAPS]  agent capabilities (default full)
//       full       session.prompt.{image,audio,embeddedContext}, session.mcp.{stdio,http},
//                  session.delete, session.additionalDirectories
//       none       no `session` capability; session/* methods are not registered (-32601)
//       stdio-only session: {mcp: {stdio: {}}} and nothing else
//       http-only  session: {mcp: {http: {}}} and nothing else
//       unstable   full, plus the unstable schema's session.{fork,archive,status,title,
//                  systemPrompt (override too)}, auth.status and providers, with handlers
//                  for session/fork, archive, unarchive, status, set_title, auth/status
//                  (then an auth/status_update), providers/list, set, disable ("main" is
//                  required) and the session/list `archived` filter
//   --auth-required                         [ACP_PEER_AUTH_REQUIRED=1]
//       advertises authMethods [{type:"agent", methodId:"test-login", ...}]; session
//       requests fail with -32000 until `auth/login {methodId:"test-login"}` succeeded;
//       `auth/logout` logs out again.
//   --protocol-version=N                    [ACP_PEER_PROTOCOL_VERSION]
//       answer every `initialize` with protocolVersion N (1 = a v1-shaped result,
//       other values = a v2-shaped result). Answered outside the SDK because the SDK's
//       v2 API refuses to send any version but 2, so the connection stays
//       uninitialized for the SDK: later requests get the SDK's -32600.
//   --reject-version                        [ACP_PEER_REJECT_VERSION=1]
//       fail `initialize` (protocolVersion >= 2) with -32022 data {requested, supported:[1]};
//       a retry with protocolVersion 1 gets a v1-shaped result (again outside the SDK).
//   --page-size=N                           [ACP_PEER_PAGE_SIZE]  session/list page size (default 2)
//   --slow-ms=N                             [ACP_PEER_SLOW_MS]    delay between "slow" ticks (default 100)
//   --slow-ticks=N                          [ACP_PEER_SLOW_TICKS] number of "slow" ticks (default 50)
//   --record=FILE                           [ACP_PEER_RECORD]
//       append every line received from the client as {"dir":"in","msg":...} and every
//       line sent as {"dir":"out","msg":...} (a line that is not JSON: "raw" instead of
//       "msg"), so validate.mjs can schema-check the client's traffic afterwards.
//   --silent-initialize                     never answer `initialize` (a hung agent)
//   --pid-file=FILE                         write the process id to FILE at startup
//   --unknown-session-errors                session/close and session/delete of a session the
//       agent does not know fail with -32002 (the SDK's sessionNotFound) instead of {}
//   --empty-cursor                          session/list's first nextCursor is "" (valid,
//       CLIENT-GUIDE 4.5) and the last page says nextCursor: null explicitly
//   --state-dir=DIR                         [ACP_PEER_STATE_DIR]
//       persist every session (ids, cwd, directories, title, config, replay history,
//       id counters, deleted flag) to DIR/sessions.json after every change (temp file +
//       rename) and load it at startup, so sessions survive an agent restart: a new
//       process can session/list and session/resume (with replay) them.
//

import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import { appendFileSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { createPeer, readOptions } from "./agent-app.mjs";

let opts;
try {
  opts = readOptions(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`ts-agent: ${err.message}\n`);
  process.exit(2);
}

const log = (...parts) => process.stderr.write(`ts-agent: ${parts.join(" ")}\n`);
if (opts.pidFile) writeFileSync(opts.pidFile, `${process.pid}\n`);

let peer;
try {
  peer = createPeer(opts, { log });
} catch (err) {
  log(`cannot load --state-dir: ${err.message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------
// Transport: stdin/stdout as NDJSON, with a byte-level recorder (a line that is not
// JSON is recorded as "raw").

function record(dir, line) {
  if (!opts.record) return;
  let entry;
  try {
    entry = { dir, msg: JSON.parse(line) };
  } catch {
    entry = { dir, raw: line };
  }
  // Synchronous so the file order is the wire order and nothing is lost on exit.
  appendFileSync(opts.record, JSON.stringify(entry) + "\n");
}

// Splits the raw input into lines for the recorder while passing the bytes through
// untouched to the SDK's own framer.
function inputRecorder() {
  let pending = Buffer.alloc(0);
  const emitLines = () => {
    let nl;
    while ((nl = pending.indexOf(0x0a)) >= 0) {
      const line = pending.subarray(0, nl).toString("utf8").replace(/\r$/, "");
      pending = pending.subarray(nl + 1);
      if (line.trim() !== "") record("in", line);
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      pending = Buffer.concat([pending, Buffer.from(chunk)]);
      emitLines();
      controller.enqueue(chunk);
    },
    flush() {
      const rest = pending.toString("utf8");
      if (rest.trim() !== "") record("in", rest);
    },
  });
}

// The SDK's framer writes exactly one message plus "\n" per chunk.
const stdoutSink = new WritableStream({
  write(chunk) {
    record("out", Buffer.from(chunk).toString("utf8").replace(/\n$/, ""));
    return new Promise((resolve) => process.stdout.write(chunk, () => resolve()));
  },
});

const stdin = Readable.toWeb(process.stdin).pipeThrough(inputRecorder());
const wire = acp.ndJsonStream(stdoutSink, stdin);

// ---------------------------------------------------------------------------
// Run until the client closes stdin.

peer.connect(wire, {}, {
  onClosed: (_conn, err) => {
    if (err) log(`connection failed: ${err?.message ?? err}`);
    shutdown(err ? 1 : 0);
  },
});
log(`ready (caps=${opts.caps}${opts.authRequired ? ", auth required" : ""})`);

function shutdown(code) {
  peer.freeze();
  process.stdout.write("", () => process.exit(code));
}

process.stdout.on("error", () => process.exit(0));
