// The agent kit: a probe adapter (docs/probe.md §1) around the implementer's
// own ask_choice, on @agentclientprotocol/sdk. The kit is an ACP agent whose
// every prompt is a probe request; it runs the request with the callbacks it
// was given and reports the outcome. Everything of §1 that is not the feature
// is here: initialize and session/new, the client capabilities of this
// connection, the probe request read with exact numbers, values the kit
// controls, the fallback the request names, cancellation, the outcome, and
// the connection's end.

import { setTimeout as sleep } from "node:timers/promises";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { parseRequest, formatOutcome } from "./probe.mjs";
import { sameValue, stringify } from "./json.mjs";

/** The outcome kinds a user's error can be mapped to with `errors`. */
export const ERROR_KINDS = ["invalid_argument", "unsupported", "invalid_response", "invalid_fallback"];

// The JSON of each Value, out of the user's reach.
const jsonOf = new WeakMap();

/**
 * A probe value other than null: an object the kit made for one offered
 * choice (or for a fallback's copy of one), so that the value an ask_choice
 * returns is found by identity. Its JSON is kept exactly, big integers
 * included: the outcome writes it as it came.
 */
export class Value {
  constructor(json) {
    jsonOf.set(this, json);
  }
  /** toString is the value's JSON text, exactly as the request wrote it (compact). */
  toString() {
    return stringify(jsonOf.get(this));
  }
  /** toJSON is the value as plain JavaScript data: JSON.parse of its text (big integers rounded, as JS does). */
  toJSON() {
    return JSON.parse(this.toString());
  }
}

const box = (json) => (json === null ? null : new Value(json));
const unbox = (v) => (v instanceof Value ? jsonOf.get(v) : v === undefined ? null : v);

/** equal says whether two probe values are the same (equal as JSON, exactly, §1.7). */
export const equal = (offered, candidate) => sameValue(unbox(offered), unbox(candidate));

/** The error of a fallback of kind "error": its message is the request's. */
export class FallbackError extends Error {}

/**
 * serveAgent serves the probe adapter on one connection (an SDK stream, such
 * as acp.ndJsonStream) and returns the SDK's connection handle: `closed`
 * settles when the connection ends.
 *
 * @param stream the SDK stream of the connection
 * @param agent {{askChoice, createElicitation?, errors?, results?, name?}} as for runAgent
 */
export function serveAgent(stream, agent) {
  check(agent);
  const name = agent.name ?? "acpconform-kit-agent";
  let clientCapabilities = {}; // from initialize on this connection (CAP-1)
  let sessions = 0;
  const turns = new Map(); // sessionId -> AbortController of its prompt turn
  let connection;

  const app = acp
    .agent({ name })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {},
        agentInfo: { name, version: "1" },
        authMethods: [],
      };
    })
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `probe-${++sessions}` }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
      const text = params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
      let req;
      try {
        req = parseRequest(text);
      } catch (err) {
        throw acp.RequestError.invalidParams({ error: err.message });
      }
      // The turn ends on session/cancel, on a newer prompt of the session,
      // and on $/cancel_request for this prompt. The SDK also aborts `signal`
      // when the connection closes: that is left to the user's call, which
      // sees its pending request fail.
      const turn = new AbortController();
      turns.get(params.sessionId)?.abort();
      turns.set(params.sessionId, turn);
      const onAbort = () => {
        if (!connection.signal.aborted) turn.abort();
      };
      signal.addEventListener("abort", onAbort);
      try {
        const session = newSession(params.sessionId, clientCapabilities, client, connection.signal);
        const call = run(agent, session, req, turn.signal, connection.signal);
        // A cancelled turn ends now, whether or not the user's call has
        // heard of it: no outcome, "cancelled" (§1.6).
        const outcome = await Promise.race([call, aborted(turn.signal)]);
        if (turn.signal.aborted) return { stopReason: "cancelled" };
        if (connection.signal.aborted) {
          process.stderr.write(`${name}: connection closed; outcome not sent: ${outcome}\n`);
          return { stopReason: "end_turn" }; // goes nowhere: the SDK drops it
        }
        await client.notify(acp.methods.client.session.update, {
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: outcome } },
        });
        return { stopReason: "end_turn" };
      } finally {
        signal.removeEventListener("abort", onAbort);
        if (turns.get(params.sessionId) === turn) turns.delete(params.sessionId);
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      turns.get(params.sessionId)?.abort();
    });
  connection = app.connect(stream);
  return connection;
}

/**
 * runAgent serves the probe adapter on stdin and stdout until stdin ends,
 * then ends the process within 100 ms even if a call of the user still
 * waits (§1.6: exit within 2 s of stdin's end).
 *
 * @param agent.askChoice {(call) => Promise<{status, value?}>} the user's
 *   ask_choice, given one argument: {session, question, choices, fallback,
 *   signal, equal, warn} (README.md says each).
 * @param agent.createElicitation {(call) => Promise<{status or action, content?}>}
 *   the user's create_elicitation, given {session, request, signal, warn};
 *   without it, the agent does not offer the op: each such request is
 *   answered with the error outcome not_offered (§1.9).
 * @param agent.errors {{[kind]: ErrorClass | ErrorClass[]}} the user's error
 *   classes by outcome kind: invalid_argument, unsupported, invalid_response,
 *   invalid_fallback.
 * @param agent.results {{accept(value), decline(), cancel()}} how the fallbacks
 *   build the user's results; default plain objects {status, value}.
 * @param agent.name the agent's name in initialize.
 */
export async function runAgent(agent) {
  const conn = serveAgent(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)), agent);
  await conn.closed;
  // Let a pending turn log its outcome, then exit even if a call still waits.
  setTimeout(() => process.exit(0), 100).unref();
}

function check(agent) {
  if (typeof agent?.askChoice !== "function") throw new TypeError("runAgent: askChoice must be a function");
  if (agent.createElicitation !== undefined && typeof agent.createElicitation !== "function") {
    throw new TypeError("runAgent: createElicitation must be a function");
  }
  for (const [kind, classes] of Object.entries(agent.errors ?? {})) {
    if (!ERROR_KINDS.includes(kind)) throw new TypeError(`runAgent: errors.${kind}: the kinds are ${ERROR_KINDS.join(", ")}`);
    if (![classes].flat().every((c) => typeof c === "function")) throw new TypeError(`runAgent: errors.${kind} must be error classes`);
  }
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * newSession is the handle a user's call sends elicitation/create with:
 *   session.client.request(acp.methods.client.elicitation.create,
 *     { sessionId: session.sessionId, mode: "form", message, requestedSchema },
 *     { cancellationSignal: signal, stopWaitingOnCancel: true })
 */
function newSession(sessionId, clientCapabilities, client, closed) {
  return {
    sessionId,
    clientCapabilities, // as received in initialize on this connection
    client, // the SDK's AgentContext
    closed, // aborted when the connection ends
    // supportsElicitation: only a JSON object advertises a mode (CAP-1).
    supportsElicitation: (mode) => isObject(clientCapabilities?.elicitation?.[mode]),
  };
}

function aborted(signal) {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", resolve, { once: true });
  });
}

// NOT_OFFERED answers op create_elicitation for an adapter without
// createElicitation: it does not offer the op (§1.9).
const NOT_OFFERED = { outcome: "error", error: "not_offered", message: "this adapter does not offer create_elicitation: it runs askChoice only" };

// run runs one probe request with the user's callbacks and returns the
// outcome's text. It never rejects.
async function run(agent, session, req, signal, closed) {
  const warnings = [];
  // warn takes a code ("plain-value-fallback"), or a message and a code as
  // process.emitWarning does.
  const warn = (messageOrCode, code) => {
    const named = typeof code === "object" && code !== null ? code.code : code;
    warnings.push(String(named ?? messageOrCode));
  };
  let out;
  try {
    if (req.op === "create_elicitation" && !agent.createElicitation) out = NOT_OFFERED;
    else out = req.op === "create_elicitation" ? await elicit(agent, session, req, signal, warn) : await choose(agent, session, req, signal, warn);
  } catch (err) {
    out = errorOutcome(err, agent.errors, closed);
  }
  try {
    return formatOutcome({ ...out, warnings });
  } catch (err) {
    // Not written as something else: said, as the feature returned it.
    const message = `the feature's result cannot be written in the outcome: ${err?.message ?? err}`;
    return formatOutcome({ outcome: "error", error: "internal", message, warnings });
  }
}

async function choose(agent, session, req, signal, warn) {
  const choices = req.choices.map((c) => ({ ...c, value: box(c.value) }));
  const fallback = req.fallback ? fallbackOf(req.fallback, req.fallbackDelayMs, signal, agent.results ?? plainResults) : undefined;
  const res = await agent.askChoice({ session, question: req.question, choices, fallback, signal, equal, warn });
  const status = res?.status;
  if (status === "declined" || status === "cancelled") return { outcome: status };
  if (status !== "accepted") throw new Error(`askChoice returned no result with a status: ${describe(res)}`);
  // Nothing is filled in: an accept without a value is no choice, not null's.
  if (res.value === undefined) throw new Error(`askChoice returned an accepted result without a value: ${describe(res)}`);
  // By identity: -1 when the value is none of the offered objects.
  return { outcome: "accepted", index: choices.findIndex((c) => c.value === res.value), value: unbox(res.value) };
}

const plainResults = {
  accept: (value) => ({ status: "accepted", value }),
  decline: () => ({ status: "declined" }),
  cancel: () => ({ status: "cancelled" }),
};

// fallbackOf builds the fallback a probe request asks for; it waits delayMs
// first, or until the turn ends. A value it returns is a new object: a copy
// of the offered one that the user's ask_choice must match with equal.
function fallbackOf(f, delayMs, signal, results) {
  return async () => {
    if (delayMs > 0) await sleep(Math.min(delayMs, 2 ** 31 - 1), undefined, { signal });
    switch (f.kind) {
      case "accepted":
        return results.accept(box(f.value));
      case "declined":
        return results.decline();
      case "cancelled":
        return results.cancel();
      case "error":
        throw new FallbackError(f.message);
      case "plain":
        return box(f.value); // a plain value: the deprecated path
    }
    throw new Error(`unknown fallback kind ${JSON.stringify(f.kind)}`);
  };
}

// elicit runs op create_elicitation (§1.9) and reports what the user's call
// returned.
async function elicit(agent, session, req, signal, warn) {
  const { mode, message, requestedSchema, url, elicitationId } = req;
  const request = mode === "form" ? { mode, message, requestedSchema } : { mode, message, url, elicitationId };
  return elicitationOutcome(await agent.createElicitation({ session, request, signal, warn }));
}

// A create_elicitation's status or action, in the seed's words or ACP's.
const OUTCOME_OF = { accepted: "accepted", declined: "declined", cancelled: "cancelled", accept: "accepted", decline: "declined", cancel: "cancelled" };

/**
 * elicitationOutcome is the outcome of a createElicitation's result, exactly
 * as returned: its status (or action) and its content whatever the status.
 * Content beside a decline, a cancel or a URL's accept is reported, so that
 * acpconform judges it (ELI-2, ELI-3): the kit validates nothing for you.
 * null content is none. An action no outcome can say (not accept, decline or
 * cancel) is reported as invalid_response, naming it, as the Go kit does.
 */
export function elicitationOutcome(res) {
  const member = res?.status != null ? "status" : "action";
  const said = res?.[member];
  if (said == null || said === "") throw new Error(`createElicitation returned no result with a status or an action: ${describe(res)}`);
  if (typeof said !== "string") throw new Error(`createElicitation returned a result whose ${member} is no string: ${describe(res)}`);
  if (!Object.hasOwn(OUTCOME_OF, said)) {
    const message = `createElicitation returned the ${member} ${JSON.stringify(said)}, none of accept, decline and cancel: no outcome reports it as it is`;
    return { outcome: "error", error: "invalid_response", message };
  }
  return { outcome: OUTCOME_OF[said], content: res.content };
}

// errorOutcome classifies an error of the user's call: the kit's fallback
// error, then the user's own classes, then a JSON-RPC error answer anywhere
// in the cause chain, then the connection's end; anything else is internal.
function errorOutcome(err, errors = {}, closed) {
  const message = err?.message ?? String(err);
  if (err instanceof FallbackError) return { outcome: "error", error: "fallback_error", message };
  for (const [kind, classes] of Object.entries(errors)) {
    if ([classes].flat().some((c) => err instanceof c)) return { outcome: "error", error: kind, message };
  }
  const rpc = requestErrorIn(err);
  if (rpc) return { outcome: "error", error: "request_error", code: rpc.code, message: rpc.message, data: rpc.data };
  if (closed.aborted) return { outcome: "error", error: "connection", message };
  return { outcome: "error", error: "internal", message };
}

// requestErrorIn finds the SDK's RequestError (a JSON-RPC error answer) in
// err's cause chain. A second copy of the SDK has its own class: its errors
// are known by name and an integer code.
function requestErrorIn(err) {
  for (let e = err, depth = 0; e != null && depth < 100; e = e.cause, depth++) {
    if (e instanceof acp.RequestError || (e?.name === "RequestError" && Number.isInteger(e.code))) return e;
  }
  return undefined;
}

function describe(v) {
  try {
    return stringify(v).slice(0, 200);
  } catch {
    return String(v);
  }
}
