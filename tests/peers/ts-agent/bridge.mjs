#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// A stdio <-> remote ACP bridge on the official TypeScript SDK's own client transports
// (@agentclientprotocol/sdk 2.4.0 "experimental/http-client" createHttpStream and
// "experimental/ws-client" createWebSocketStream with the `ws` package):
//
//   node bridge.mjs URL [--header=NAME:VALUE ...]
//
// URL is http(s)://... (Streamable HTTP) or ws(s)://... (WebSocket). Each JSON line on
// stdin is sent as one message; each message received is written to stdout as one JSON
// line. So a test that speaks NDJSON to agent.mjs speaks the same to a server.mjs
// through the SDK's client side. If the transport fails, one line
// {"transportError":"<message>"} is written and the bridge exits 3; when the agent side
// ends the stream it exits 0. On stdin EOF it closes the stream (HTTP: DELETE of the
// connection) and exits 0. TLS: the CA file comes from NODE_EXTRA_CA_CERTS.

import { createInterface } from "node:readline";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { WebSocket } from "ws";

const log = (...parts) => process.stderr.write(`bridge: ${parts.join(" ")}\n`);

const [url, ...rest] = process.argv.slice(2);
const headers = {};
for (const arg of rest) {
  const m = /^--header=([^:]+):(.*)$/.exec(arg);
  if (!m) {
    log(`unknown argument: ${arg}`);
    process.exit(2);
  }
  headers[m[1].trim()] = m[2].trim();
}
if (!url || !/^(https?|wss?):\/\//.test(url)) {
  log("usage: node bridge.mjs http(s)://...|ws(s)://... [--header=NAME:VALUE ...]");
  process.exit(2);
}

const stream = url.startsWith("ws") ? createWebSocketStream(url, { WebSocket, headers }) : createHttpStream(url, { headers });
const writer = stream.writable.getWriter();

const writeLine = (value) => new Promise((resolve) => process.stdout.write(JSON.stringify(value) + "\n", resolve));

let finished = false;
async function finish(code, error) {
  if (finished) return;
  finished = true;
  if (error !== undefined) await writeLine({ transportError: String(error?.message ?? error) });
  process.exit(code);
}

(async () => {
  try {
    for await (const msg of stream.readable) await writeLine(msg);
    await finish(0);
  } catch (err) {
    await finish(3, err);
  }
})();

// Messages go out one at a time, in stdin order; a failed write also fails the readable
// (which reports it), except for errors the transport turns into a JSON-RPC error answer.
let chain = Promise.resolve();
createInterface({ input: process.stdin })
  .on("line", (line) => {
    if (line.trim() === "") return;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      log(`not JSON, not sent: ${line.slice(0, 200)}`);
      return;
    }
    chain = chain.then(() => writer.write(msg)).catch((err) => log(`send failed: ${err?.message ?? err}`));
  })
  .on("close", () => {
    chain
      .then(() => writer.close())
      .catch((err) => log(`close failed: ${err?.message ?? err}`))
      .finally(() => finish(0));
  });
