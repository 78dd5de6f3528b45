#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// A stand-in for the Gemini API on 127.0.0.1, so `gemini --acp` can run a prompt turn
// offline (GOOGLE_GEMINI_BASE_URL). A generation answers "Hello from the fake model.",
// except for the editor-tools turn: asked "What is selected?" with a function named
// *current_selection* declared, it calls that function; given the function's response,
// it answers "The selection is: " and the response's text. The JSON-schema calls Gemini
// CLI makes around a turn (its model router's complexity score, its next-speaker check)
// get a minimal valid answer. Prints the port it listens on, then serves until killed;
// logs each request (method, path, what it declared and answered) to stderr.
import { createServer } from "node:http";

const answer = (parts) => ({
  candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
});

// The text of a function response, however Gemini CLI wrapped the MCP result.
const responseText = (response) => {
  const texts = [];
  const walk = (value) => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(response);
  return texts.join("");
};

// What to answer a generation request: the parts of the model's turn.
const reply = (request) => {
  const declared = (request.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name);
  const tool = declared.find((name) => name.includes("current_selection"));
  const contents = request.contents ?? [];
  const last = contents[contents.length - 1]?.parts ?? [];
  const result = last.find((p) => p.functionResponse?.name?.includes("current_selection"));
  process.stderr.write(`  declared: ${declared.join(", ")}\n  last: ${JSON.stringify(last).slice(0, 500)}\n`);
  if (result) return [{ text: `The selection is: ${responseText(result.functionResponse.response)}` }];
  const asked = last.some((p) => typeof p.text === "string" && p.text.includes("What is selected?"));
  if (asked && tool) return [{ functionCall: { name: tool, args: {} } }];
  return [{ text: "Hello from the fake model." }];
};

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    process.stderr.write(`${req.method} ${req.url}\n`);
    let parts;
    if (body.includes("complexity_score")) {
      parts = [{ text: JSON.stringify({ complexity_reasoning: "trivial", complexity_score: 5 }) }];
    } else if (body.includes("next_speaker")) {
      parts = [{ text: JSON.stringify({ reasoning: "done", next_speaker: "user" }) }];
    } else {
      let request = {};
      try {
        request = JSON.parse(body);
      } catch {
        // Not JSON (countTokens of nothing, say): the plain answer.
      }
      parts = reply(request);
    }
    process.stderr.write(`  answer: ${JSON.stringify(parts)}\n`);
    if (req.url.includes("streamGenerateContent")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify(answer(parts))}\r\n\r\n`);
    } else if (req.url.includes("countTokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ totalTokens: 10 }));
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer(parts)));
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
