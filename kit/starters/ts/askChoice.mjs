// askChoice.mjs: your feature. agent.mjs hands it to acpconform-kit, which
// turns every probe request of acpconform into a call of askChoice (or of
// createElicitation) and reports what it returns. Until you write them, every
// check fails saying so.
//
// What askChoice must send and how it must read the answer:
// docs/probe.md §1.4 ("What your ask_choice sends") and suite/contract.md, in
// the acpconform repository. A complete one to compare with is the kit's
// example, acpconform-kit/example/askChoice.mjs.
//
// agent.mjs calls askChoice(session, question, choices, options) and
// createElicitation(session, request, options), where options is the kit's
// call: {fallback, signal, equal, warn} (acpconform-kit/README.md, "What
// your ask_choice gets"). Send on the prompt's session with
//
//   await session.client.request("elicitation/create",
//     {sessionId: session.sessionId, mode: "form", message: question, requestedSchema},
//     {cancellationSignal: options.signal, stopWaitingOnCancel: true})
//
// The second argument's two members are what RTE-7 needs: the first sends
// $/cancel_request when the turn is cancelled, the second stops waiting.

/** The result of a choice: status "accepted" (with value), "declined" or "cancelled". */
export class ChoiceResult {
  constructor(status, value) {
    this.status = status;
    this.value = value;
  }
}
export const accept = (value) => new ChoiceResult("accepted", value);
export const decline = () => new ChoiceResult("declined");
export const cancel = () => new ChoiceResult("cancelled");

export class InvalidArgumentError extends Error {}
export class ElicitationUnsupportedError extends Error {}
export class InvalidElicitationResponseError extends Error {}
export class InvalidElicitationFallbackError extends Error {}

export async function askChoice(session, question, choices, options = {}) {
  throw new Error("askChoice is not written yet: write it in askChoice.mjs (docs/probe.md §1.4 says what it sends)");
}

export async function createElicitation(session, request, options = {}) {
  throw new Error("createElicitation is not written yet: write it in askChoice.mjs (docs/probe.md §1.9)");
}
