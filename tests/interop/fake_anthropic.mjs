#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// A stand-in for the Anthropic Messages API on 127.0.0.1, so claude-agent-acp (the Claude
// CLI under it) can run prompt turns offline (ANTHROPIC_BASE_URL). A message answers
// "Hello from the fake model.", followed by " (system: WORD)" when the system prompt holds
// "fake-model-marker:WORD" (how a test sees a session's systemPrompt append arrive).
// The editor-tools turn: asked "What is selected?" with a tool named
// mcp__editor__current_selection declared, it calls that tool; when the CLI defers MCP
// tools behind its ToolSearch tool instead, it first asks ToolSearch to load it; given
// the tool's result, it answers "The selection is: " and the result's text. Answers
// stream as server-sent events when the request asks for it (message_start,
// content_block_start/delta/stop, message_delta, message_stop), else as one JSON message;
// count_tokens gets a count, anything else a 404. Prints the port it listens on, then
// serves until killed; logs each request (method, path, what it declared and answered)
// to stderr.
import { createServer } from "node:http";

const TOOL = "mcp__editor__current_selection";
let next_id = 0;

// The text in a message's content (a string or blocks), tool results' text included.
const textOf = (content) => {
  if (typeof content === "string") return content;
  return (content ?? [])
    .map((block) => (block.type === "text" ? block.text : block.type === "tool_result" ? textOf(block.content) : ""))
    .join("");
};

// The name of the tool a tool_use id belongs to, from the assistant's earlier turns.
const toolNamed = (messages, id) => {
  for (const message of messages) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    const use = message.content.find((block) => block.type === "tool_use" && block.id === id);
    if (use) return use.name;
  }
  return undefined;
};

const toolUse = (name, input) => ({ type: "tool_use", id: `toolu_fake_${++next_id}`, name, input });

// The content blocks of the model's answer to a Messages request.
const reply = (request) => {
  const messages = request.messages ?? [];
  const declared = (request.tools ?? []).map((t) => t.name);
  // The newest user message (the CLI may put a system-role message after it).
  const last = messages.filter((m) => m.role === "user").pop() ?? {};
  const blocks = Array.isArray(last.content) ? last.content : [];
  const system = textOf(Array.isArray(request.system) ? request.system : [{ type: "text", text: request.system ?? "" }]);
  process.stderr.write(`  declared: ${declared.join(", ")}\n  last: ${JSON.stringify(last).slice(0, 500)}\n`);
  for (const result of blocks.filter((b) => b.type === "tool_result")) {
    const name = toolNamed(messages, result.tool_use_id);
    if (name === TOOL) return [{ type: "text", text: `The selection is: ${textOf(result.content)}` }];
    if (name === "ToolSearch") return [toolUse(TOOL, {})];
  }
  // Only the turn's own request: the CLI's side requests (a title, a suggestion) quote
  // the prompt in a user message of their own, without the tools.
  if (textOf(last.content).includes("What is selected?") && blocks.every((b) => b.type !== "tool_result")) {
    if (declared.includes(TOOL)) return [toolUse(TOOL, {})];
    if (declared.includes("ToolSearch")) return [toolUse("ToolSearch", { query: `select:${TOOL}`, max_results: 1 })];
  }
  const marker = /fake-model-marker:(\w+)/.exec(system);
  return [{ type: "text", text: `Hello from the fake model.${marker ? ` (system: ${marker[1]})` : ""}` }];
};

const message = (request, content) => ({
  id: `msg_fake_${++next_id}`,
  type: "message",
  role: "assistant",
  model: request.model ?? "claude-fake",
  content,
  stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5 },
});

// The answer as the Messages streaming format's events.
const events = (whole) => {
  const out = [];
  const send = (type, data) => out.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send("message_start", { message: { ...whole, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } });
  whole.content.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      send("content_block_start", { index, content_block: { ...block, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: whole.stop_reason, stop_sequence: null }, usage: { output_tokens: 5 } });
  send("message_stop", {});
  return out.join("");
};

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    process.stderr.write(`${req.method} ${req.url}\n`);
    const path = req.url.split("?")[0];
    let request = {};
    try {
      request = JSON.parse(body);
    } catch {
      // No body (a GET): nothing to read.
    }
    if (req.method === "POST" && path.endsWith("/v1/messages/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    if (req.method !== "POST" || !path.endsWith("/v1/messages")) {
      process.stderr.write("  answer: 404\n");
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not served by the fake" } }));
      return;
    }
    const whole = message(request, reply(request));
    process.stderr.write(`  answer: ${JSON.stringify(whole.content)}\n`);
    if (request.stream) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(events(whole));
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(whole));
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
