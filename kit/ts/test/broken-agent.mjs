#!/usr/bin/env node
// The example adapter with one mistake a kit user could make, for the test
// that acpconform catches it (interop/kit_ts_test.go):
//
//   node broken-agent.mjs forgets-the-fallback   # FB-3: no fallback runs, the choice is "unsupported"
//   node broken-agent.mjs forgets-equal          # FB-4: a fallback's value matched with ===, never offered
//   node broken-agent.mjs forgets-the-signal     # RTE-7: a cancelled choice never tells the client

import { runAgent } from "acpconform-kit";
import * as feature from "../example/askChoice.mjs";

const mistakes = {
  "forgets-the-fallback": ({ signal, equal, warn }) => ({ signal, equal, warn }),
  "forgets-equal": ({ fallback, signal, warn }) => ({ fallback, signal, warn }),
  "forgets-the-signal": ({ fallback, equal, warn }) => ({ fallback, equal, warn }),
};
const options = mistakes[process.argv[2]];
if (!options) {
  process.stderr.write(`usage: node broken-agent.mjs ${Object.keys(mistakes).join("|")}\n`);
  process.exit(2);
}

await runAgent({
  askChoice: (call) => feature.askChoice(call.session, call.question, call.choices, options(call)),
  createElicitation: (call) => feature.createElicitation(call.session, call.request, call),
  results: { accept: feature.accept, decline: feature.decline, cancel: feature.cancel },
  errors: {
    invalid_argument: feature.InvalidArgumentError,
    unsupported: feature.ElicitationUnsupportedError,
    invalid_response: feature.InvalidElicitationResponseError,
    invalid_fallback: feature.InvalidElicitationFallbackError,
  },
});
