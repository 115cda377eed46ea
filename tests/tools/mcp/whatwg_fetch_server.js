// An MCP server over stdio in plain JavaScript, reading URLs the way browsers and servers
// written in JavaScript or TypeScript do (WHATWG `new URL`). Its one tool, `fetch`, opens
// nothing: it answers with the host it would open and, when a file is named as its first
// argument, adds that host to the file, one a line.
"use strict";

const fs = require("fs");
const readline = require("readline");

const opened = process.argv[2];

const TOOLS = [
  {
    name: "fetch",
    description: "Fetch a web page (here: say which host it would open).",
    inputSchema: {
      type: "object",
      properties: { url: { type: "string", description: "The address to fetch." } },
      required: ["url"],
    },
  },
];

function send(message) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}

function call(params) {
  const args = params.arguments || {};
  if (params.name !== "fetch" || typeof args.url !== "string") {
    return { content: [{ type: "text", text: "unknown tool or no url" }], isError: true };
  }
  let host;
  try {
    host = new URL(args.url).host;
  } catch (error) {
    return { content: [{ type: "text", text: `not a URL: ${error.message}` }], isError: true };
  }
  if (opened) {
    fs.appendFileSync(opened, host + "\n");
  }
  return { content: [{ type: "text", text: `opened ${host}` }], isError: false };
}

function answer(request) {
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: (request.params && request.params.protocolVersion) || "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "whatwg-fetch", version: "1.0.0" },
      };
    case "ping":
      return {};
    case "tools/list":
      return { tools: TOOLS };
    case "tools/call":
      return call(request.params || {});
    default:
      return undefined;
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) {
    return;
  }
  const request = JSON.parse(line);
  if (request.id === undefined || request.id === null) {
    return; // a notification: nothing to answer
  }
  const result = answer(request);
  if (result === undefined) {
    send({ id: request.id, error: { code: -32601, message: `no method ${request.method}` } });
  } else {
    send({ id: request.id, result });
  }
});
