// SPDX-License-Identifier: Apache-2.0
// The official MCP TypeScript SDK's client (@modelcontextprotocol/sdk) against the tools a
// libacp host offers (lib/tools/: the loopback HTTP carrier and the stdio bridge), and the
// SDK's own server as the baseline for the carrier benchmark.
//
//   node mcp-client.mjs --http=URL --token=T [--calls=N]            Streamable HTTP, bearer token
//   node mcp-client.mjs --stdio=CMD --arg=A... --env=K=V... [--calls=N]   stdio (the bridge)
//   node mcp-client.mjs --bare=http|stdio --calls=N                 the SDK client against the SDK server
//   node mcp-client.mjs --serve-stdio                               (the SDK server over stdio, for --bare=stdio)
//
// Without --calls: lists the tools, calls `echo` plainly and with progress, and prints one
// JSON line {tools, plain, withProgress, progress, sessionId}. With --calls=N: N sequential
// echo calls after a warm-up, and prints {calls, seconds, perSecond}. Exit code 1 on any error
// (its message on stderr).
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
} else {
  try {
    await main();
    process.exit(0);
  } catch (error) {
    process.stderr.write(`mcp-client: ${error?.stack ?? error}\n`);
    process.exit(1);
  }
}

async function bareHttpServer() {
  // Stateless: a fresh transport per request, as the SDK's examples serve many clients.
  const server = http.createServer(async (request, response) => {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const mcp = sdkServer();
    response.on('close', () => { transport.close(); mcp.close(); });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function main() {
  let transport;
  let bareServer;
  if (options.http) {
    transport = new StreamableHTTPClientTransport(new URL(options.http), {
      requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
    });
  } else if (options.stdio) {
    const env = { PATH: process.env.PATH };
    for (const pair of options.env) {
      const at = pair.indexOf('=');
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
    transport = new StdioClientTransport({ command: options.stdio, args: options.arg, env, stderr: 'inherit' });
  } else if (options.bare === 'http') {
    bareServer = await bareHttpServer();
    transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${bareServer.address().port}/mcp`));
  } else if (options.bare === 'stdio') {
    transport = new StdioClientTransport({
      command: process.execPath, args: [new URL(import.meta.url).pathname, '--serve-stdio'], stderr: 'inherit',
    });
  } else {
    throw new Error('one of --http, --stdio, --bare is needed');
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
    if (transport.terminateSession && transport.sessionId && !options.bare) await transport.terminateSession();
    await client.close();
    bareServer?.close();
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
