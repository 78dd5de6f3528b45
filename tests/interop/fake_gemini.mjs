#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// A stand-in for the Gemini API on 127.0.0.1, so `gemini --acp` can run a prompt turn
// offline (GOOGLE_GEMINI_BASE_URL). Every generation answers "Hello from the fake model.";
// the JSON-schema calls Gemini CLI makes around a turn (its model router's complexity
// score, its next-speaker check) get a minimal valid answer. Prints the port it listens
// on, then serves until killed.
import { createServer } from "node:http";

const answer = (text) => ({
  candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
});

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    process.stderr.write(`${req.method} ${req.url}\n`);
    let text = "Hello from the fake model.";
    if (body.includes("complexity_score")) text = JSON.stringify({ complexity_reasoning: "trivial", complexity_score: 5 });
    else if (body.includes("next_speaker")) text = JSON.stringify({ reasoning: "done", next_speaker: "user" });
    if (req.url.includes("streamGenerateContent")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify(answer(text))}\r\n\r\n`);
    } else if (req.url.includes("countTokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ totalTokens: 10 }));
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer(text)));
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
