#!/usr/bin/env node
// The client probe adapter (docs/probe.md §2) on @agentclientprotocol/sdk: an
// ACP client in test mode. It spawns nothing: it speaks ACP on its own stdio
// (stdin is the agent's output, stdout the agent's input), or over a
// WebSocket with --websocket URL. It initializes advertising form and URL
// elicitation, opens a session, sends one prompt, answers each
// elicitation/create as the scripted-user instruction in
// params._meta["acpconform/user"] says (acpconform-kit's answerAsInstructed),
// and exits 0 when the turn ends.
//
//   node client.mjs [--no-url] [--no-elicitation-handler] [--broken NAME] [--websocket URL] [PROMPT_TEXT]
//
// PROMPT_TEXT defaults to "hello". --no-url advertises form elicitation only
// and refuses URL requests with -32602. --no-elicitation-handler still
// advertises the capability but registers no handler, so the SDK answers
// -32601. --broken NAME breaks one behaviour on purpose (BROKEN, below).
// The outcome text an agent reports, if any, is copied to stderr.

import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { answerAsInstructed, instructionOf } from "acpconform-kit";

// BROKEN are the broken variants: each breaks one behaviour as a badly
// written client would, and acpconform must fail it on the rule named.
const BROKEN = new Set([
  "missing-required", // ELI-8: drops the first required property from a form's content
  "integer-as-string", // ELI-8: writes each integer of a form's content as a string
  "out-of-bounds", // ELI-8: answers maximum+1 for each property with a maximum
  "outside-enum", // ELI-8: answers "not-offered" for each string property with an enum
  "content-on-decline", // ELI-8: a decline carries content
  "complete-unhandled", // ELI-5: exits 1 on elicitation/complete, as on a notification it does not know
  "ignores-cancel", // ELI-7: a wait is never answered, even once the agent cancels it
]);

function parseArgs(argv) {
  const opts = { handler: true, urlMode: true, broken: undefined, websocket: undefined, text: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--no-elicitation-handler") opts.handler = false;
    else if (a === "--no-url") opts.urlMode = false;
    else if (a === "--broken" && i + 1 < argv.length) opts.broken = argv[++i];
    else if (a.startsWith("--broken=")) opts.broken = a.slice("--broken=".length);
    else if (a === "--websocket" && i + 1 < argv.length) opts.websocket = argv[++i];
    else if (a.startsWith("--websocket=")) opts.websocket = a.slice("--websocket=".length);
    else if (a.startsWith("--") || opts.text !== undefined) usage(`unexpected argument ${JSON.stringify(a)}`);
    else opts.text = a;
  }
  if (opts.broken !== undefined && !BROKEN.has(opts.broken)) {
    usage(`unknown broken variant ${JSON.stringify(opts.broken)}: one of ${[...BROKEN].join(", ")}`);
  }
  opts.text ??= "hello";
  return opts;
}

function usage(why) {
  process.stderr.write(
    `client: ${why}\nusage: node client.mjs [--no-url] [--no-elicitation-handler] [--broken NAME] [--websocket URL] [PROMPT_TEXT]\n`,
  );
  process.exit(2);
}

// answer answers as acpconform-kit's test mode does (PROBE §2): as the
// scripted user says, -32602 for a mode that was not advertised (ELI-6) or an
// instruction that cannot be followed, and cancel when there is no
// instruction. The SDK has already checked params against the ACP schema (a
// malformed request got -32602 before this). signal aborts on the agent's
// $/cancel_request for this request, which ends a wait. A --broken variant
// then spoils the answer.
async function answer(params, signal) {
  if (opts.broken === "ignores-cancel" && instructionOf(params)?.action === "wait") {
    return new Promise(() => {}); // settles never: no answer at all
  }
  const res = (await answerAsInstructed(params, { signal, elicitation })) ?? { action: "cancel" };
  if (opts.broken === "content-on-decline" && res.action === "decline") res.content = { reason: "no" };
  // The instruction's content is the accept of a form that is no typed choice.
  if (res.action === "accept" && instructionOf(params)?.content !== undefined) spoil(params.requestedSchema, res.content);
  return res;
}

// spoil breaks content, a copy of the instruction's, as the --broken
// variant says; without one it leaves it as it is.
function spoil(schema, content) {
  const properties = Object.entries(schema.properties);
  switch (opts.broken) {
    case "missing-required":
      if (schema.required?.length) delete content[schema.required[0]];
      break;
    case "integer-as-string":
      for (const [name, value] of Object.entries(content)) if (Number.isInteger(value)) content[name] = String(value);
      break;
    case "out-of-bounds":
      for (const [name, p] of properties) if (typeof p.maximum === "number") content[name] = p.maximum + 1;
      break;
    case "outside-enum":
      for (const [name, p] of properties) if (p.type === "string" && Array.isArray(p.enum)) content[name] = "not-offered";
      break;
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
const elicitation = opts.urlMode ? { form: {}, url: {} } : { form: {} }; // the capability advertised
const app = acp.client({ name: "acpconform-ts-client" }).onNotification(acp.methods.client.session.update, ({ params }) => {
  const { update } = params;
  if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
    process.stderr.write(`client: agent says: ${update.content.text}\n`);
  }
});
if (opts.handler) app.onRequest(acp.methods.client.elicitation.create, ({ params, signal }) => answer(params, signal));
// The SDK drops a notification it has no handler for, but a client must
// take this one knowingly: it opened no URL, so there is nothing to close,
// whether the id is one it accepted, never saw, or saw completed (ELI-5).
app.onNotification(acp.methods.client.elicitation.complete, () => {
  if (opts.broken === "complete-unhandled") {
    process.stderr.write("client: elicitation/complete: unknown notification\n");
    process.exit(1);
  }
});

try {
  const stream = await openStream(opts.websocket);
  const { stopReason } = await app.connectWith(stream, async (agent) => {
    await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { elicitation },
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
