#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// libacp test peer: the same scripted ACP v2 agent as agent.mjs, served over the network
// by the official TypeScript SDK's server side (@agentclientprotocol/sdk 2.4.0:
// "experimental/server" AcpServer, "experimental/node" adapters) — Streamable HTTP
// (POST + SSE) and WebSocket (the `ws` package) on one port, path /acp, 127.0.0.1 only.
//
//   node tests/peers/ts-agent/server.mjs [agent options] [server options]
//
// At startup it prints exactly one line on stdout, then logs only to stderr:
//   {"http":"http://127.0.0.1:PORT/acp","ws":"ws://127.0.0.1:PORT/acp"}   (https/wss with TLS)
// It exits 0 on SIGTERM/SIGINT and when stdin reaches EOF, so a test that dies does not
// leave it running: keep a pipe to its stdin open for as long as the server should live.
//
// Agent options: all of agent.mjs's (--caps, --auth-required, --state-dir, --slow-ms,
// --record, ...). Sessions belong to the process, not to a connection: a client that
// connects again can session/resume them (and with --state-dir a restarted server too).
//
// Server options:
//   --port=N                   listen port (default 0: an ephemeral port, see the first line)
//   --tls-cert=FILE --tls-key=FILE   serve https + wss with this PEM certificate and key
//   --require-token=T          HTTP requests and WebSocket upgrades without
//                              "Authorization: Bearer T" get 401, body "unauthorized"
//   --fail-method=METHOD:STATUS[,METHOD:STATUS...]   a POST carrying a request with that
//                              method gets HTTP STATUS, JSON body {"error":"injected","method":METHOD},
//                              and does not reach the agent
//   --sse-open-delay-ms=N      delay the response headers of every SSE GET by N ms
//   --detach-blocks-get        a "detach"ed session's SSE GETs get 409 too (see below)
//   --affinity-cookie          the initialize response sets cookie acp-affinity=<connection id>;
//                              later requests of that connection without it get 400
//                              "missing affinity cookie"
//   --ignore-stdin             do not exit on stdin EOF (manual runs)
//
// The "detach" prompt script ends its turn normally; from then on every HTTP POST
// carrying "Acp-Session-Id: <that session>" gets 409 (body "session detached"), until a
// POST of session/resume or session/load for the session arrives: that one is forwarded
// and clears the mark. SSE GETs for the session are served, because the SDK's own client
// (createHttpStream) reattaches by opening the session's stream before it POSTs
// session/resume; --detach-blocks-get answers them 409 as well. Over WebSocket the mark
// has no effect.
//
// --record=FILE writes one line per JSON-RPC message the agent receives or sends:
//   {"dir":"in"|"out","conn":N,"transport":"http"|"ws","msg":...}
// N numbers the connections from 1 (validate.mjs pairs requests and answers per conn).
// A POST the server answers itself (--fail-method, detach 409) is recorded as
//   {"dir":"in","conn":N,"transport":"http","http":STATUS,"msg":...}
// (no conn if the Acp-Connection-Id is unknown). Messages are objects here, not lines:
// a body that is not JSON never reaches the agent and is not recorded.

import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { WebSocketServer } from "ws";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { createPeer, readOptions } from "./agent-app.mjs";

const PATH = "/acp";
const HOST = "127.0.0.1";
const SERVER_FLAGS = ["port", "tls-cert", "tls-key", "require-token", "fail-method", "sse-open-delay-ms", "detach-blocks-get", "affinity-cookie", "ignore-stdin"];
const SESSION_REATTACH = new Set(["session/resume", "session/load"]);
const AFFINITY_COOKIE = "acp-affinity";

const log = (...parts) => process.stderr.write(`ts-server: ${parts.join(" ")}\n`);
// stdout carries the one URL line; the SDK's own console output goes to stderr.
console.log = console.info = console.debug = (...args) => console.error(...args);

function readServerOptions(extra) {
  const value = (name) => {
    const e = extra.get(name);
    if (!e) return undefined;
    if (!e.valued || e.value === "") throw new Error(`--${name} needs a value: --${name}=...`);
    return e.value;
  };
  const int = (name, fallback) => {
    const v = value(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} needs a non-negative integer, got ${v}`);
    return n;
  };
  const failMethods = new Map();
  for (const item of (value("fail-method") ?? "").split(",").filter((x) => x !== "")) {
    const m = /^(.+):(\d{3})$/.exec(item);
    if (!m || Number(m[2]) < 200 || Number(m[2]) > 599) throw new Error(`--fail-method wants METHOD:STATUS (200-599), got ${item}`);
    failMethods.set(m[1], Number(m[2]));
  }
  const tlsCert = value("tls-cert");
  const tlsKey = value("tls-key");
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw new Error("--tls-cert and --tls-key go together");
  const port = int("port", 0);
  if (port > 65535) throw new Error(`--port out of range: ${port}`);
  return {
    port,
    tls: tlsCert === undefined ? undefined : { cert: readFileSync(tlsCert), key: readFileSync(tlsKey) },
    token: value("require-token"),
    failMethods,
    sseOpenDelayMs: int("sse-open-delay-ms", 0),
    detachBlocksGet: extra.has("detach-blocks-get"),
    affinityCookie: extra.has("affinity-cookie"),
    ignoreStdin: extra.has("ignore-stdin"),
  };
}

let opts;
let server;
try {
  opts = readOptions(process.argv.slice(2), process.env, SERVER_FLAGS);
  server = readServerOptions(opts.extra);
} catch (err) {
  log(err.message);
  process.exit(2);
}
if (opts.pidFile) writeFileSync(opts.pidFile, `${process.pid}\n`);

// Sessions marked by the "detach" script: their HTTP requests get 409 until reattached.
const detached = new Set();

let peer;
try {
  peer = createPeer(opts, {
    log: (...parts) => log(...parts),
    onDetach: (sessionId, transport) => {
      if (transport !== "http") return; // over WebSocket (or detached) the mark has no effect
      detached.add(sessionId);
      log(`session ${sessionId} detached: its HTTP requests get 409 until session/resume or session/load`);
    },
  });
} catch (err) {
  log(`cannot load --state-dir: ${err.message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------
// Recording (message level; see the header)

function record(entry) {
  if (!opts.record) return;
  appendFileSync(opts.record, JSON.stringify(entry) + "\n");
}

const recordConnection = (dir, msg, conn) => record({ dir, conn: conn.id, transport: conn.transport, msg });

// Acp-Connection-Id -> our connection number, for records of POSTs the server answers itself.
const connectionNumbers = new Map();

/** An AgentConnector for one HTTP initialize or WebSocket upgrade; `onConnection` learns its connection. */
function connectorFor(transport, onConnection) {
  return peer.connector({ transport, onConnection, record: opts.record ? recordConnection : undefined });
}

const acpServer = new AcpServer({ agent: connectorFor("http") });

// ---------------------------------------------------------------------------
// HTTP faults, at the Fetch API level in front of AcpServer.handleRequest

const text = (body, status, headers = {}) => new Response(body, { status, headers: { "Content-Type": "text/plain", ...headers } });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function cookieValue(req, name) {
  for (const part of (req.headers.get("Cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}

async function handleRequest(req) {
  const connectionId = req.headers.get("Acp-Connection-Id");
  const sessionId = req.headers.get("Acp-Session-Id");
  if (server.affinityCookie && connectionId && cookieValue(req, AFFINITY_COOKIE) !== connectionId) {
    return text("missing affinity cookie", 400);
  }
  if (req.method === "GET" && sessionId && detached.has(sessionId) && server.detachBlocksGet) {
    return text("session detached", 409);
  }
  if (req.method === "POST") {
    let msg;
    try {
      msg = JSON.parse(await req.clone().text());
    } catch {
      msg = undefined; // AcpServer answers it
    }
    if (msg && typeof msg === "object" && !Array.isArray(msg)) {
      const rejected = (status) => {
        const conn = connectionNumbers.get(connectionId);
        record({ dir: "in", ...(conn ? { conn } : {}), transport: "http", http: status, msg });
      };
      const failStatus = typeof msg.method === "string" && "id" in msg ? server.failMethods.get(msg.method) : undefined;
      if (failStatus !== undefined) {
        rejected(failStatus);
        log(`${msg.method} answered HTTP ${failStatus} (--fail-method)`);
        return new Response(JSON.stringify({ error: "injected", method: msg.method }), {
          status: failStatus,
          headers: { "Content-Type": "application/json" },
        });
      }
      if (sessionId && detached.has(sessionId)) {
        if (SESSION_REATTACH.has(msg.method) && msg.params?.sessionId === sessionId) {
          detached.delete(sessionId);
          log(`session ${sessionId} reattached by ${msg.method}`);
        } else {
          rejected(409);
          return text("session detached", 409);
        }
      }
    }
  }
  if (req.method === "GET" && server.sseOpenDelayMs > 0 && (req.headers.get("Accept") ?? "").includes("text/event-stream")) {
    await sleep(server.sseOpenDelayMs);
  }
  let created;
  const response = await acpServer.handleRequest(req, { agent: connectorFor("http", (conn) => (created = conn.id)) });
  const newId = response.headers.get("Acp-Connection-Id");
  if (created !== undefined && newId) {
    connectionNumbers.set(newId, created);
    if (server.affinityCookie) response.headers.append("Set-Cookie", `${AFFINITY_COOKIE}=${newId}; Path=/; HttpOnly`);
  }
  return response;
}

const nodeHttpHandler = createNodeHttpHandler({ handleRequest });
const webSocketServer = new WebSocketServer({ noServer: true });
const nodeUpgradeHandler = createNodeWebSocketUpgradeHandler(
  {
    prepareWebSocketUpgrade: () =>
      acpServer.prepareWebSocketUpgrade({ agent: connectorFor("ws") }),
  },
  webSocketServer,
);

// Path and token checks come first, for both HTTP requests and WebSocket upgrades.
function gate(req) {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (path !== PATH) return { status: 404, body: "not found" };
  if (server.token !== undefined && req.headers.authorization !== `Bearer ${server.token}`) {
    return { status: 401, body: "unauthorized" };
  }
  return undefined;
}

const httpServer = server.tls ? createHttpsServer({ cert: server.tls.cert, key: server.tls.key }) : createHttpServer();

httpServer.on("request", (req, res) => {
  const refused = gate(req);
  if (refused) {
    res.writeHead(refused.status, { "Content-Type": "text/plain" });
    res.end(refused.body);
    return;
  }
  nodeHttpHandler(req, res);
});

httpServer.on("upgrade", (req, socket, head) => {
  const refused = gate(req);
  if (refused) {
    const reason = refused.status === 404 ? "Not Found" : "Unauthorized";
    socket.end(
      `HTTP/1.1 ${refused.status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${refused.body.length}\r\nConnection: close\r\n\r\n${refused.body}`,
    );
    return;
  }
  nodeUpgradeHandler(req, socket, head);
});

// ---------------------------------------------------------------------------
// Lifetime

let stopping = false;
async function shutdown(why) {
  if (stopping) return;
  stopping = true;
  log(`stopping (${why})`);
  peer.freeze();
  // Whatever does not close in time (a client that never reads) is cut off.
  setTimeout(() => process.exit(0), 2000).unref();
  httpServer.close();
  await acpServer.close().catch((err) => log(`close: ${err?.message ?? err}`));
  webSocketServer.close();
  httpServer.closeAllConnections();
  process.exit(0);
}

process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
if (!server.ignoreStdin) {
  process.stdin.on("end", () => void shutdown("stdin EOF"));
  process.stdin.on("error", () => void shutdown("stdin error"));
  process.stdin.resume();
}

httpServer.on("error", (err) => {
  log(`cannot listen: ${err.message}`);
  process.exit(1);
});
httpServer.listen(server.port, HOST, () => {
  const { port } = httpServer.address();
  const secure = server.tls !== undefined;
  const urls = {
    http: `${secure ? "https" : "http"}://${HOST}:${port}${PATH}`,
    ws: `${secure ? "wss" : "ws"}://${HOST}:${port}${PATH}`,
  };
  process.stdout.write(JSON.stringify(urls) + "\n");
  log(`listening on ${urls.http} and ${urls.ws} (caps=${opts.caps}${opts.authRequired ? ", auth required" : ""}${server.token ? ", token required" : ""})`);
});
