// SPDX-License-Identifier: Apache-2.0
// The official MCP TypeScript SDK's client (@modelcontextprotocol/sdk) against the tools a
// libacp host offers (lib/tools/: the loopback HTTP carrier and the stdio bridge), and the
// SDK's own server as the baseline for the carrier benchmark.
//
//   node mcp-client.mjs --http=URL [--token=T] [--calls=N]          Streamable HTTP, bearer token
//   node mcp-client.mjs --stdio=CMD --arg=A... --env=K=V... [--calls=N]   stdio (e.g. the bridge)
//   node mcp-client.mjs --serve-http [--sse]   the SDK's server over HTTP (prints {"url":...}; ends
//                                              with stdin), answering with JSON or, --sse, event streams
//   node mcp-client.mjs --serve-stdio     the SDK's server over stdio
//
// Without --calls: lists the tools, calls `echo` plainly and with progress, and prints one
// JSON line {tools, plain, withProgress, progress, sessionId}. With --calls=N: N sequential
// echo calls after a warm-up, and prints {calls, seconds, perSecond}. Exit code 1 on any error
// (its message on stderr).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const options = { arg: [], env: [] };
for (const flag of process.argv.slice(2)) {
  const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(flag);
  if (!match) throw new Error(`bad flag ${flag}`);
  const [, name, value = 'true'] = match;
  if (name === 'arg' || name === 'env') options[name].push(value);
  else options[name] = value;
}

// The baseline server: the same echo tool on the SDK's McpServer.
function sdkServer() {
  const server = new McpServer({ name: 'sdk-echo', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

if (options['serve-stdio']) {
  await sdkServer().connect(new StdioServerTransport());
} else if (options['serve-http']) {
  await serveHttp();
} else {
  try {
    await main();
    process.exit(0);
  } catch (error) {
    process.stderr.write(`mcp-client: ${error?.stack ?? error}\n`);
    process.exit(1);
  }
}

// One session, answered with JSON as the libacp carrier answers a call without progress
// (or with an event stream per request, the SDK's default).
async function serveHttp() {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(), enableJsonResponse: !options.sse });
  await sdkServer().connect(transport);
  const server = http.createServer((request, response) => transport.handleRequest(request, response));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/mcp` }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

async function main() {
  let transport;
  if (options.http) {
    const headers = options.token ? { Authorization: `Bearer ${options.token}` } : {};
    transport = new StreamableHTTPClientTransport(new URL(options.http), { requestInit: { headers } });
  } else if (options.stdio) {
    const env = { PATH: process.env.PATH };
    for (const pair of options.env) {
      const at = pair.indexOf('=');
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
    transport = new StdioClientTransport({ command: options.stdio, args: options.arg, env, stderr: 'inherit' });
  } else {
    throw new Error('one of --http, --stdio is needed');
  }

  const client = new Client({ name: 'libacp-carrier-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    if (options.calls) {
      await bench(client, Number(options.calls));
    } else {
      await converse(client, transport);
    }
  } finally {
    if (transport.terminateSession && transport.sessionId) await transport.terminateSession();
    await client.close();
  }
}

async function converse(client, transport) {
  const { tools } = await client.listTools();
  const plain = await client.callTool({ name: 'echo', arguments: { text: 'plain h\u00e9llo' } });
  let progress = 0;
  const withProgress = await client.callTool({ name: 'echo', arguments: { text: 'with progress' } }, undefined, {
    onprogress: () => { progress += 1; },
  });
  process.stdout.write(JSON.stringify({
    tools: tools.map((tool) => tool.name),
    plain: plain.content,
    withProgress: withProgress.content,
    progress,
    sessionId: transport.sessionId ?? null,
  }) + '\n');
}

async function bench(client, calls) {
  const call = (i) => client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
  for (let i = 0; i < Math.min(200, calls); ++i) await call(i);  // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; ++i) {
    const result = await call(i);
    if (result.content?.[0]?.text !== `call ${i}`) throw new Error(`call ${i}: unexpected ${JSON.stringify(result)}`);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  process.stdout.write(JSON.stringify({ calls, seconds, perSecond: calls / seconds }) + '\n');
}
