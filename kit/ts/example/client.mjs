#!/usr/bin/env node
// A client in test mode (docs/probe.md §2) on acpconform-kit: it speaks ACP
// on its own stdio, as the client of the agent at the other end, sends one
// prompt, answers each elicitation/create as acpconform's scripted user says
// (answerAsInstructed), and exits 0 when the turn ends. A real client would
// ask its user where the request carries no instruction; this one cancels.
// Check it with
//
//   acpconform client -- node client.mjs

import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { answerAsInstructed } from "acpconform-kit";

const elicitation = { form: {}, url: {} }; // what this client advertises, and so answers
const app = acp
  .client({ name: "example-client" })
  .onRequest(acp.methods.client.elicitation.create, async ({ params, signal }) =>
    (await answerAsInstructed(params, { signal, elicitation })) ?? { action: "cancel" },
  )
  .onNotification(acp.methods.client.elicitation.complete, () => {}); // it opened no URL: nothing to close

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
await app.connectWith(stream, async (agent) => {
  await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { elicitation } });
  const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
  return agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hello" }] });
});
process.exit(0);
