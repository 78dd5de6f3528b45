#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// A stand-in for the OpenAI Responses API on 127.0.0.1, so codex-acp can run a prompt
// turn offline (a model provider in its config.toml with this base_url). Every response
// streams "Hello from the fake model.", except for the editor-tools turn: asked "What is
// selected?" with a tool named *current_selection* declared, it calls that tool; given
// the call's output, it answers "The selection is: " and the output's text. Prints the
// port it listens on, then serves until killed; logs each request to stderr.
import { createServer } from "node:http";

// Every tool the request declares, as [name, namespace]: plain functions and the
// functions inside a namespace.
const declaredTools = (request) => {
  const found = [];
  for (const tool of request.tools ?? []) {
    if (tool.name) found.push([tool.name, undefined]);
    for (const inner of tool.tools ?? []) found.push([inner.name, tool.name]);
  }
  return found;
};

const textOf = (value) => {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(textOf).join("");
  if (value && typeof value === "object") return textOf(value.text ?? value.output ?? value.content ?? "");
  return "";
};

// The output items of the model's turn.
const reply = (request) => {
  const input = Array.isArray(request.input) ? request.input : [];
  const declared = declaredTools(request);
  process.stderr.write(`  declared: ${declared.map(([n, ns]) => (ns ? `${ns}/${n}` : n)).join(", ")}\n`);
  const outputs = input.filter((item) => item.type === "function_call_output");
  if (outputs.length > 0) {
    const output = outputs[outputs.length - 1];
    process.stderr.write(`  output: ${JSON.stringify(output).slice(0, 500)}\n`);
    return [message(`The selection is: ${textOf(output.output)}`)];
  }
  const last = input[input.length - 1];
  const asked = last?.role === "user" && textOf(last.content).includes("What is selected?");
  const tool = declared.find(([name]) => name.includes("current_selection"));
  if (asked && tool) {
    const call = { type: "function_call", id: "fc_1", call_id: "call_1", name: tool[0], arguments: "{}" };
    if (tool[1]) call.namespace = tool[1];
    return [call];
  }
  return [message("Hello from the fake model.")];
};

const message = (text) => ({
  type: "message",
  id: "msg_1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    process.stderr.write(`${req.method} ${req.url}\n`);
    if (!req.url.includes("/responses")) {
      process.stderr.write(`  not served: ${body.slice(0, 300)}\n`);
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "not served by the fake model", type: "not_found" } }));
      return;
    }
    let request = {};
    try {
      request = JSON.parse(body);
    } catch {
      // Not JSON: the plain answer.
    }
    const items = reply(request);
    process.stderr.write(`  answer: ${JSON.stringify(items)}\n`);
    const id = `resp_${Date.now()}`;
    const events = [{ type: "response.created", response: { id } }];
    for (const item of items) events.push({ type: "response.output_item.done", item });
    events.push({
      type: "response.completed",
      response: { id, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } },
    });
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""));
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
