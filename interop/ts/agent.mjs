#!/usr/bin/env node
// An agent probe adapter (docs/probe.md §1) on acpconform-kit: the ask_choice
// and create_elicitation of ./askChoice.mjs (the feature), wired to the kit,
// which does the rest of the protocol. Check it with
//
//   acpconform agent -- node agent.mjs

import { runAgent } from "acpconform-kit";
import * as feature from "./askChoice.mjs";

await runAgent({
  // call: {session, question, choices, fallback, signal, equal, warn}; the
  // feature takes the last four as its options.
  askChoice: (call) => feature.askChoice(call.session, call.question, call.choices, call),
  createElicitation: (call) => feature.createElicitation(call.session, call.request, call),
  // How the kit's fallbacks build the feature's results, and which of the
  // feature's errors is which outcome kind.
  results: { accept: feature.accept, decline: feature.decline, cancel: feature.cancel },
  errors: {
    invalid_argument: feature.InvalidArgumentError,
    unsupported: feature.ElicitationUnsupportedError,
    invalid_response: feature.InvalidElicitationResponseError,
    invalid_fallback: feature.InvalidElicitationFallbackError,
  },
});
