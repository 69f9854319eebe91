// askChoice: the typed-choice elicitation of CONTRACT.md, agent side, on
// @agentclientprotocol/sdk. It asks the client to pick one of several
// application values through one elicitation/create form whose options carry
// opaque tokens (choice_0, choice_1, ...) instead of the values, and maps the
// answer back to the offered value.
//
//   const res = await askChoice(session, "Choose a target", [
//     { value: preview, label: "Preview" },
//     { value: production, label: "Production", description: "...", default: true },
//   ], { fallback, equal, signal, warn });
//   res.status: "accepted" (res.value is the offered value itself), "declined" or "cancelled"
//
// In order, it
//  1. validates the arguments (VAL-1..5): InvalidArgumentError before anything else;
//  2. checks that the client advertised form elicitation in initialize on this
//     connection (CAP-1/2); without it, runs the fallback if there is one (FB,
//     DEP) and otherwise throws ElicitationUnsupportedError, sending nothing;
//  3. sends one elicitation/create form scoped to the session (SCH, DEF-2);
//  4. maps the answer back strictly (TOK, RES): InvalidElicitationResponseError
//     for anything but a known action and, for accept, a token of this request.
//
// A JSON-RPC error answer becomes ElicitationRequestError with code, message
// and data intact and the SDK's RequestError as its cause, and no fallback
// runs (RTE-1/2). A connection that closes
// while the choice is pending throws ConnectionClosedError. Aborting
// options.signal sends $/cancel_request, stops waiting and rejects with the
// signal's reason (RTE-7).
//
// Beside it, createElicitation is the low-level API for every other form and
// for URL elicitation (CONTRACT ELI-1..3): it sends one elicitation/create as
// given, if the client advertised its mode, and checks an accepted form's
// content against the requested schema.
//
//   const res = await createElicitation(session, { mode: "form", message, requestedSchema }, { signal });
//   const res = await createElicitation(session, { mode: "url", message, url, elicitationId }, { signal });
//   res.status: "accepted" (res.content: a form's content as received, if any), "declined" or "cancelled"

import { RequestError, methods } from "@agentclientprotocol/sdk";
// The kit's judge of a form's content (content.mjs), called where ACP says
// an agent SHOULD validate again (ELI-3).
import { contentProblems } from "acpconform-kit";

// Wire names of the typed-choice form (CONTRACT SCH-2..5).
export const CHOICE_PROPERTY = "choice";
export const CHOICE_TITLE = "Choice";
export const DESCRIPTION_META_KEY = "acpkit.dev/choice-description";
export const TOKEN_PREFIX = "choice_";

/** The outcome of a choice. Build it with accept, decline or cancel. */
export class ChoiceResult {
  constructor(status, value) {
    this.status = status; // "accepted" | "declined" | "cancelled"
    this.value = value; // accepted only
  }
}
export const accept = (value) => new ChoiceResult("accepted", value);
export const decline = () => new ChoiceResult("declined");
export const cancel = () => new ChoiceResult("cancelled");

/** The arguments break VAL-1..4; the message is one of the four of the contract. */
export class InvalidArgumentError extends Error {}
/**
 * The client did not advertise form elicitation and there is no fallback (CAP-3), or the mode of a
 * createElicitation (ELI-1).
 */
export class ElicitationUnsupportedError extends Error {}
/**
 * The client's answer names no valid choice (TOK-2, RES-2), or an accepted form's content does not
 * satisfy its schema (ELI-3). `result` is the answer as received.
 */
export class InvalidElicitationResponseError extends Error {
  constructor(reason, result) {
    super(`invalid elicitation response: ${reason}`);
    this.result = result;
  }
}
/** A fallback's acceptance names no offered choice (FB-4, DEP-2/3). */
export class InvalidElicitationFallbackError extends Error {}
/** The client answered with a JSON-RPC error, kept intact: code, rpcMessage, data. */
export class ElicitationRequestError extends Error {
  constructor(method, code, rpcMessage, data, options) {
    super(`${method}: JSON-RPC error ${code}: ${rpcMessage}`, options);
    Object.assign(this, { method, code, rpcMessage, data });
  }
}
/** The connection ended before the client answered (RTE-7). */
export class ConnectionClosedError extends Error {}

/** The deprecation warning of a fallback that returns a plain value (DEP-1). */
export const PLAIN_VALUE_WARNING =
  "ask_choice: the fallback returned a plain value instead of a result; plain-value " +
  "fallbacks are deprecated: return accept(value), decline() or cancel()";

/** token(i) is the opaque token of the choice at index i (SCH-4). */
export const token = (i) => TOKEN_PREFIX + String(i);

/**
 * Asks the session's client to pick one of choices.
 *
 * @param session {{sessionId: string, clientCapabilities: object, client: object, closed?: AbortSignal}}
 *   clientCapabilities: as received in initialize on this connection; form is
 *   supported iff elicitation.form is an object; client: the SDK's AgentContext;
 *   closed: aborted when the connection closes (the connection handle's `signal`).
 * @param question {string} sent as the form's message, untrimmed
 * @param choices {{value: any, label: string, description?: string, default?: boolean}[]}
 * @param options.fallback {(signal) => Promise<ChoiceResult | any>} runs only when the
 *   client lacks form elicitation. Its declined and cancelled results are returned
 *   unchanged and its errors propagate unchanged. An accepted result, or a plain
 *   value (deprecated: warns once per call), must match an offered value; the
 *   offered value is returned.
 * @param options.equal {(offered, candidate) => boolean} how a fallback's value is
 *   matched; default `===`. Choices are scanned in order, the first match wins, and
 *   a comparison that throws skips that choice (FB-6).
 * @param options.signal {AbortSignal} cancels the call
 * @param options.warn {(message, code) => void} deprecation warnings; default
 *   process.emitWarning. code is "plain-value-fallback".
 */
export async function askChoice(session, question, choices, options = {}) {
  validate(question, choices);
  const { signal } = options;
  signal?.throwIfAborted();
  // Only a JSON object advertises form (CAP-1): false, "yes", [] and 1 do
  // not. (The SDK's parse already reads such a member as absent.)
  if (!isObject(session.clientCapabilities?.elicitation?.form)) {
    if (options.fallback) return runFallback(choices, options);
    throw new ElicitationUnsupportedError(
      "elicitation unsupported by the client: no form elicitation in the client's capabilities and no fallback",
    );
  }
  const result = await send(session, compile(question, choices), signal);
  const [status, i] = readChoice(result, choices.length);
  return status === "accepted" ? accept(choices[i].value) : new ChoiceResult(status);
}

// send sends one elicitation/create with params, scoped to the session, and
// returns the client's result as received.
async function send(session, params, signal) {
  const method = methods.client.elicitation.create;
  try {
    // The SDK's AgentContext.request sends params as given (so sessionId stays)
    // and returns the raw result: it does not validate responses.
    return await session.client.request(method, { sessionId: session.sessionId, ...params }, {
      cancellationSignal: signal,
      stopWaitingOnCancel: true,
    });
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    // The SDK rejects pending requests with the close reason when the
    // connection ends; a JSON-RPC error answer arrives as its RequestError.
    const closedReason = session.closed?.aborted ? session.closed.reason : undefined;
    if (err instanceof RequestError && err !== closedReason) {
      throw new ElicitationRequestError(method, err.code, err.message, err.data, { cause: err });
    }
    throw new ConnectionClosedError(`${method}: connection closed before the client answered`, { cause: err });
  }
}

/** compile builds the form of SCH-1..7 and DEF-2, without the session scope. */
export function compile(question, choices) {
  const oneOf = choices.map((c, i) => {
    const option = { const: token(i), title: c.label };
    if (typeof c.description === "string" && c.description !== "") {
      option.description = c.description; // the schema's own field (SCH-7)
      option._meta = { [DESCRIPTION_META_KEY]: c.description }; // ACP Kit's key (SCH-5)
    }
    return option;
  });
  const choice = { type: "string", title: CHOICE_TITLE, oneOf };
  const d = choices.findIndex((c) => c.default === true);
  if (d >= 0) choice.default = token(d); // absent, not null, without a default
  return {
    mode: "form",
    message: question,
    requestedSchema: { type: "object", properties: { [CHOICE_PROPERTY]: choice }, required: [CHOICE_PROPERTY] },
  };
}

// validate checks VAL-1..4 in the contract's order.
function validate(question, choices) {
  if (isBlank(question)) throw new InvalidArgumentError("question must not be blank");
  if (!Array.isArray(choices) || choices.length === 0) throw new InvalidArgumentError("choices must not be empty");
  if (choices.some((c) => isBlank(c?.label))) throw new InvalidArgumentError("choice labels must not be blank");
  if (choices.filter((c) => c.default === true).length > 1) {
    throw new InvalidArgumentError("at most one choice may be the default");
  }
}

// isBlank: not a string, or only Unicode White_Space, the set Go's
// strings.TrimSpace removes. (String.prototype.trim differs: it strips U+FEFF
// and keeps U+0085.)
const isBlank = (s) => typeof s !== "string" || /^\p{White_Space}*$/u.test(s);

// readChoice reads an answer to a form of n choices: [status, index]
// (TOK-1..3, RES-1..4). The result is as received: the SDK does not validate it.
function readChoice(result, n) {
  const invalid = (reason) => new InvalidElicitationResponseError(`no valid choice: ${reason}`, result);
  if (!isObject(result)) throw invalid("the result is not a JSON object");
  if (Object.hasOwn(result, "action") && typeof result.action !== "string") throw invalid("the action is not a string");
  switch (result.action) {
    case "accept":
      return ["accepted", readToken(result.content, n, invalid)];
    case "decline": // content, if any, is ignored (RES-4)
      return ["declined"];
    case "cancel":
      return ["cancelled"];
    case undefined:
      throw invalid("the action is missing");
    default:
      throw invalid(`unknown action ${JSON.stringify(result.action)}`);
  }
}

// readToken finds this request's token in an accept's content; keys other
// than "choice" are ignored (TOK-3). No default repairs a bad answer (DEF-3).
function readToken(content, n, invalid) {
  if (content === undefined) throw invalid("accept without content");
  if (!isObject(content)) throw invalid(`content is not an object: ${JSON.stringify(content)}`);
  if (!Object.hasOwn(content, CHOICE_PROPERTY)) throw invalid(`content has no "${CHOICE_PROPERTY}"`);
  const t = content[CHOICE_PROPERTY];
  if (typeof t !== "string") throw invalid(`"${CHOICE_PROPERTY}" is not a string: ${JSON.stringify(t)}`);
  // Canonical only: ASCII digits, no sign, no padding, no white space.
  const m = /^choice_(0|[1-9][0-9]*)$/.exec(t);
  const i = m ? Number(m[1]) : NaN; // a huge index becomes a huge Number or Infinity: out of range
  if (!(i < n)) throw invalid(`${JSON.stringify(t)} is not one of the ${n} offered tokens`);
  return i;
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// runFallback runs the fallback and checks what it returns (FB-2..6, DEP-1..3).
async function runFallback(choices, { fallback, equal = (a, b) => a === b, signal, warn = defaultWarn }) {
  const res = await fallback(signal); // its errors propagate unchanged (FB-5)
  let value;
  if (res instanceof ChoiceResult) {
    if (res.status !== "accepted") return res; // FB-3, DEF-4
    value = res.value;
  } else {
    warn(PLAIN_VALUE_WARNING, "plain-value-fallback"); // once per call, before checking (DEP-1)
    value = res; // null is a real value (DEP-3)
  }
  const i = choices.findIndex((c) => {
    try {
      return equal(c.value, value) === true;
    } catch {
      return false; // a comparison that fails skips the choice (FB-6)
    }
  });
  if (i < 0) throw new InvalidElicitationFallbackError("invalid elicitation fallback: the fallback's value was not offered");
  return accept(choices[i].value); // the offered value, not the fallback's copy (FB-4)
}

function defaultWarn(message, code) {
  process.emitWarning(message, { type: "DeprecationWarning", code });
}

// --- createElicitation: the low-level API (CONTRACT ELI-1..3) ---------------

/**
 * Sends one elicitation/create, scoped to the session, and returns the
 * client's answer.
 *
 * @param session as for askChoice
 * @param request {{mode: "form", message: string, requestedSchema: object} |
 *   {mode: "url", message: string, url: string, elicitationId: string}} sent as given
 * @param options.signal {AbortSignal} cancels the call
 * @returns {{status: "accepted" | "declined" | "cancelled", content?: object}} content only
 *   for an accepted form whose client sent some, as received
 *
 * It throws ElicitationUnsupportedError, having sent nothing, when the client
 * did not advertise request.mode (elicitation.form or elicitation.url a JSON
 * object), and InvalidElicitationResponseError for an answer that is not an
 * object of a known action or an accepted form's content that does not
 * satisfy requestedSchema (contentProblems). The content of a decline, a
 * cancel or an accepted URL means nothing and is dropped. JSON-RPC errors,
 * the connection's end and the signal end it as they end askChoice.
 */
export async function createElicitation(session, request, { signal } = {}) {
  signal?.throwIfAborted();
  const { mode } = request;
  if (!(mode === "form" || mode === "url") || !isObject(session.clientCapabilities?.elicitation?.[mode])) {
    const why = `mode ${show(mode)} was not advertised`;
    throw new ElicitationUnsupportedError(`elicitation unsupported by the client: ${why}`);
  }
  const result = await send(session, request, signal);
  const invalid = (reason) => new InvalidElicitationResponseError(reason, result);
  if (!isObject(result)) throw invalid("the result is not a JSON object");
  switch (result.action) {
    case "accept": {
      if (mode === "url") return { status: "accepted" };
      const problems = contentProblems(request.requestedSchema, result.content);
      if (problems.length > 0) {
        throw invalid(`the accepted content does not satisfy the requested schema: ${problems.join("; ")}`);
      }
      return result.content == null ? { status: "accepted" } : { status: "accepted", content: result.content };
    }
    case "decline":
      return { status: "declined" };
    case "cancel":
      return { status: "cancelled" };
    case undefined:
      throw invalid("the action is missing");
  }
  throw invalid(`unknown action ${show(result.action)}`);
}

// show writes a value for a message, cut to 80 characters.
function show(v) {
  const s = typeof v === "number" ? String(v) : (JSON.stringify(v) ?? String(v));
  return s.length <= 80 ? s : `${s.slice(0, 77)}...`;
}
