// client.mjs is a probe client adapter (docs/probe.md §2) on Zed's ACP SDK,
// @zed-industries/agent-client-protocol 0.4.5: an ACP client that speaks
// ACP on its own stdio (stdin is the agent's output, stdout the agent's
// input). It initializes with the capabilities the SDK can express (files
// and terminals, none of them offered here), opens a session, sends one
// prompt, and exits 0 when the turn ends.
//
//   node client.mjs [PROMPT_TEXT]
//
// PROMPT_TEXT defaults to "hello". The SDK predates form elicitation: its
// ClientCapabilities has no elicitation member and its ClientSideConnection
// routes no elicitation/create, so it answers one with -32601 before any
// code of ours runs. The adapter adds nothing to that, on purpose: the
// matrix row is the SDK as a client built on it would behave.
// The agent's message text is copied to stderr.

import { Readable, Writable } from "node:stream";
import * as acp from "@zed-industries/agent-client-protocol";

const args = process.argv.slice(2);
if (args.length > 1 || args[0]?.startsWith("--")) {
  process.stderr.write(`client: unexpected arguments ${JSON.stringify(args)}\nusage: node client.mjs [PROMPT_TEXT]\n`);
  process.exit(2);
}
const text = args[0] ?? "hello";

// ProbeClient is the acp.Client the SDK calls for the agent's requests.
class ProbeClient {
  // requestPermission: with nobody to ask, the turn's tool call is cancelled.
  async requestPermission() {
    return { outcome: { outcome: "cancelled" } };
  }

  async sessionUpdate({ update }) {
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
      process.stderr.write(`client: agent says: ${update.content.text}\n`);
    }
  }
}

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const agent = new acp.ClientSideConnection(() => new ProbeClient(), stream);

try {
  await agent.initialize({
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  const { sessionId } = await agent.newSession({ cwd: process.cwd(), mcpServers: [] });
  const { stopReason } = await agent.prompt({ sessionId, prompt: [{ type: "text", text }] });
  process.stderr.write(`client: turn ended: ${stopReason}\n`);
  process.exit(0);
} catch (err) {
  // The SDK rejects a failed request with the JSON-RPC error object itself.
  process.stderr.write(`client: ${err?.message ?? err} ${JSON.stringify(err)}\n`);
  process.exit(1);
}
