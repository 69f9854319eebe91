#!/usr/bin/env node
// The example adapter with one mistake a kit user could make, for the test
// that acpconform catches it (interop/kit_ts_test.go):
//
//   node broken-agent.mjs forgets-the-fallback         # FB-3: no fallback runs, the choice is "unsupported"
//   node broken-agent.mjs forgets-equal                # FB-4: a fallback's value matched with ===, never offered
//   node broken-agent.mjs forgets-the-signal           # RTE-7: a cancelled choice never tells the client
//
// or in the feature's createElicitation, which the kit reports as returned:
//
//   node broken-agent.mjs sends-an-unadvertised-mode   # ELI-1: sends whatever the client advertised
//   node broken-agent.mjs invents-an-answer            # ELI-1: sends nothing to a client without the mode, yet declines
//   node broken-agent.mjs changes-the-message          # ELI-2: the message sent trimmed
//   node broken-agent.mjs changes-the-content          # ELI-2: every accepted value made a string
//   node broken-agent.mjs leaks-a-declines-content     # ELI-3: a decline returned with the client's content

import { runAgent } from "acpconform-kit";
import * as feature from "../example/askChoice.mjs";

const example = (call) => feature.createElicitation(call.session, call.request, call);

const mistakes = {
  "forgets-the-fallback": { options: ({ signal, equal, warn }) => ({ signal, equal, warn }) },
  "forgets-equal": { options: ({ fallback, signal, warn }) => ({ fallback, signal, warn }) },
  "forgets-the-signal": { options: ({ fallback, equal, warn }) => ({ fallback, equal, warn }) },
  // The feature believes the client advertised every mode.
  "sends-an-unadvertised-mode": {
    createElicitation: (call) =>
      example({ ...call, session: { ...call.session, clientCapabilities: { elicitation: { form: {}, url: {} } } } }),
  },
  "invents-an-answer": {
    createElicitation: (call) => (call.session.supportsElicitation(call.request.mode) ? example(call) : feature.decline()),
  },
  "changes-the-message": {
    createElicitation: (call) => example({ ...call, request: { ...call.request, message: call.request.message.trim() } }),
  },
  "changes-the-content": {
    createElicitation: async (call) => {
      const res = await example(call);
      if (!res.content) return res;
      return { ...res, content: Object.fromEntries(Object.entries(res.content).map(([k, v]) => [k, String(v)])) };
    },
  },
  // The feature hands the client's content on with a decline: it keeps the
  // raw answer its session's client returned, and returns its content.
  "leaks-a-declines-content": {
    createElicitation: async (call) => {
      let raw;
      const client = { request: async (...args) => (raw = await call.session.client.request(...args)) };
      const res = await example({ ...call, session: { ...call.session, client } });
      return res.status === "declined" ? { ...res, content: raw?.content } : res;
    },
  },
};
const mistake = mistakes[process.argv[2]];
if (!mistake) {
  process.stderr.write(`usage: node broken-agent.mjs ${Object.keys(mistakes).join("|")}\n`);
  process.exit(2);
}
const options = mistake.options ?? ((call) => call);

await runAgent({
  askChoice: (call) => feature.askChoice(call.session, call.question, call.choices, options(call)),
  createElicitation: mistake.createElicitation ?? example,
  results: { accept: feature.accept, decline: feature.decline, cancel: feature.cancel },
  errors: {
    invalid_argument: feature.InvalidArgumentError,
    unsupported: feature.ElicitationUnsupportedError,
    invalid_response: feature.InvalidElicitationResponseError,
    invalid_fallback: feature.InvalidElicitationFallbackError,
  },
});
