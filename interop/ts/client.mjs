#!/usr/bin/env node
// The client probe adapter (docs/probe.md §2) on @agentclientprotocol/sdk: an
// ACP client in test mode. It spawns nothing: it speaks ACP on its own stdio
// (stdin is the agent's output, stdout the agent's input), or over a
// WebSocket with --websocket URL. It initializes advertising form
// elicitation, opens a session, sends one prompt, answers each
// elicitation/create as the scripted-user instruction in
// params._meta["acpconform/user"] says, and exits 0 when the turn ends.
//
//   node client.mjs [--no-elicitation-handler] [--websocket URL] [PROMPT_TEXT]
//
// PROMPT_TEXT defaults to "hello". --no-elicitation-handler still advertises
// the capability but registers no handler, so the SDK answers -32601.
// The outcome text an agent reports, if any, is copied to stderr.

import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const USER_META_KEY = "acpconform/user";

function parseArgs(argv) {
  const opts = { handler: true, url: undefined, text: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--no-elicitation-handler") opts.handler = false;
    else if (a === "--websocket" && i + 1 < argv.length) opts.url = argv[++i];
    else if (a.startsWith("--websocket=")) opts.url = a.slice("--websocket=".length);
    else if (a.startsWith("--") || opts.text !== undefined) usage(`unexpected argument ${JSON.stringify(a)}`);
    else opts.text = a;
  }
  opts.text ??= "hello";
  return opts;
}

function usage(why) {
  process.stderr.write(`client: ${why}\nusage: node client.mjs [--no-elicitation-handler] [--websocket URL] [PROMPT_TEXT]\n`);
  process.exit(2);
}

// answer follows the scripted user (PROBE §2). The SDK has already checked
// params against the ACP schema (a malformed request got -32602 before this).
// With no instruction the user cancels. An instruction that cannot be
// followed is answered with -32602 and the reason, never with a guess.
function answer(params) {
  const user = params._meta?.[USER_META_KEY];
  if (user == null) return { action: "cancel" };
  const cannot = (why) => acp.RequestError.invalidParams({ error: `cannot follow ${USER_META_KEY}: ${why}` });
  switch (user.action) {
    case "decline":
    case "cancel":
      return { action: user.action }; // no content (CLI-2)
    case "accept": {
      const choice = params.requestedSchema?.properties?.choice;
      let token;
      if (user.pick === "default") token = choice?.default;
      else if (Number.isInteger(user.pick) && user.pick >= 0) token = choice?.oneOf?.[user.pick]?.const;
      else throw cannot(`pick ${JSON.stringify(user.pick)} is neither an index nor "default"`);
      if (typeof token !== "string") throw cannot(`the form has no choice for pick ${JSON.stringify(user.pick)}`);
      return { action: "accept", content: { choice: token } };
    }
    default:
      throw cannot(`unknown action ${JSON.stringify(user.action)}`);
  }
}

async function openStream(url) {
  if (url === undefined) return acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  // Node 20 has no global WebSocket without a flag; the SDK takes a constructor.
  const [{ createWebSocketStream }, { WebSocket }] = await Promise.all([
    import("@agentclientprotocol/sdk/experimental/ws-client"),
    import("ws"),
  ]);
  return createWebSocketStream(url, { WebSocket });
}

const opts = parseArgs(process.argv.slice(2));
const app = acp.client({ name: "acpconform-ts-client" }).onNotification(acp.methods.client.session.update, ({ params }) => {
  const { update } = params;
  if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
    process.stderr.write(`client: agent says: ${update.content.text}\n`);
  }
});
if (opts.handler) app.onRequest(acp.methods.client.elicitation.create, ({ params }) => answer(params));

try {
  const stream = await openStream(opts.url);
  const { stopReason } = await app.connectWith(stream, async (agent) => {
    await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { elicitation: { form: {} } },
      clientInfo: { name: "acpconform-ts-client", version: "1" },
    });
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
    return agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: opts.text }] });
  });
  process.stderr.write(`client: turn ended: ${stopReason}\n`);
  process.exit(0);
} catch (err) {
  const detail = err instanceof acp.RequestError ? ` (code ${err.code}, data ${JSON.stringify(err.data)})` : "";
  process.stderr.write(`client: ${err?.message ?? err}${detail}\n`);
  process.exit(1);
}
