#!/usr/bin/env node
// The agent probe adapter (docs/probe.md §1) on @agentclientprotocol/sdk: an
// ACP agent on stdio whose every prompt is a probe request. It runs the
// request with askChoice.mjs (askChoice, or createElicitation for op
// create_elicitation, §1.9) and reports the outcome as one
// agent_message_chunk, then ends the turn with "end_turn". A prompt that is
// not a probe request gets JSON-RPC error -32602. When the client cancels the
// turn (session/cancel) while the choice is pending, the turn ends with
// "cancelled" and no outcome.
//
// As in the Go adapter, JSON null becomes null and every other value a
// distinct object, so `index` is found by identity: an askChoice that
// returned the fallback's copy instead of the offered value would report -1.
//
//   node agent.mjs

import { setTimeout as sleep } from "node:timers/promises";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import {
  askChoice,
  createElicitation,
  accept,
  decline,
  cancel,
  InvalidArgumentError,
  ElicitationUnsupportedError,
  InvalidElicitationResponseError,
  InvalidElicitationFallbackError,
  ElicitationRequestError,
  ConnectionClosedError,
} from "./askChoice.mjs";
import { parseRequest, sameValue, formatOutcome } from "./probe.mjs";

/** A probe value other than null: each offered value is its own object. */
class Value {
  constructor(json) {
    this.json = json;
  }
}
const box = (json) => (json === null ? null : new Value(json));
const unbox = (v) => (v instanceof Value ? v.json : null);

/** The error of an "error" fallback. */
class FallbackFailure extends Error {}

/** serve runs a probe agent on one connection and returns the SDK's connection handle. */
function serve(stream) {
  let clientCapabilities = {}; // from initialize on this connection (CAP-1, CAP-4)
  let sessions = 0;
  const turns = new Map(); // sessionId -> AbortController of its prompt turn
  let connection;

  const app = acp
    .agent({ name: "acpconform-ts-agent" })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {},
        agentInfo: { name: "acpconform-ts-agent", version: "1" },
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
      // The turn ends on session/cancel, on a newer prompt of the session, and
      // on $/cancel_request for this prompt. The SDK also aborts `signal` when
      // the connection closes: that is left to askChoice, which reports it as
      // a connection error.
      const turn = new AbortController();
      turns.get(params.sessionId)?.abort();
      turns.set(params.sessionId, turn);
      const onAbort = () => {
        if (!connection.signal.aborted) turn.abort();
      };
      signal.addEventListener("abort", onAbort);
      try {
        const session = { sessionId: params.sessionId, clientCapabilities, client, closed: connection.signal };
        const outcome = formatOutcome(await run(session, req, turn.signal));
        if (turn.signal.aborted) return { stopReason: "cancelled" };
        if (connection.signal.aborted) {
          process.stderr.write(`agent: connection closed; outcome not sent: ${outcome}\n`);
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

// run runs the probe request and describes the outcome.
async function run(session, req, signal) {
  if (req.op === "create_elicitation") return elicit(session, req, signal);
  const choices = req.choices.map((c) => ({ ...c, value: box(c.value) }));
  const warnings = [];
  const options = {
    signal,
    equal: (offered, candidate) => sameValue(unbox(offered), unbox(candidate)),
    warn: (_message, code) => warnings.push(code),
  };
  if (req.fallback) options.fallback = fallback(req.fallback, req.fallbackDelayMs);
  let out;
  try {
    const res = await askChoice(session, req.question, choices, options);
    out = { outcome: res.status };
    if (res.status === "accepted") {
      out.index = choices.findIndex((c) => c.value === res.value); // -1: none of the offered values
      out.value = unbox(res.value);
    }
  } catch (err) {
    out = errorOutcome(err);
  }
  return { ...out, warnings };
}

// elicit runs the low-level create_elicitation a probe request asks for (§1.9):
// the action, and an accepted form's content as the client sent it.
async function elicit(session, req, signal) {
  const { mode, message, requestedSchema, url, elicitationId } = req;
  const request = mode === "form" ? { mode, message, requestedSchema } : { mode, message, url, elicitationId };
  try {
    const res = await createElicitation(session, request, { signal });
    return { outcome: res.status, content: res.content };
  } catch (err) {
    return errorOutcome(err);
  }
}

// fallback builds the fallback a probe request asks for; it waits delayMs
// first, or until the turn ends.
function fallback(f, delayMs) {
  return async (signal) => {
    if (delayMs > 0) await sleep(Math.min(delayMs, 2 ** 31 - 1), undefined, { signal });
    switch (f.kind) {
      case "accepted":
        return accept(box(f.value));
      case "declined":
        return decline();
      case "cancelled":
        return cancel();
      case "error":
        throw new FallbackFailure(f.message);
      case "plain":
        return box(f.value); // a plain value: the deprecated path
    }
    throw new Error(`unknown fallback kind ${JSON.stringify(f.kind)}`);
  };
}

// errorOutcome classifies an error of askChoice.
function errorOutcome(err) {
  const out = { outcome: "error", message: err?.message ?? String(err) };
  if (err instanceof FallbackFailure) out.error = "fallback_error";
  else if (err instanceof InvalidArgumentError) out.error = "invalid_argument";
  else if (err instanceof ElicitationUnsupportedError) out.error = "unsupported";
  else if (err instanceof InvalidElicitationResponseError) out.error = "invalid_response";
  else if (err instanceof InvalidElicitationFallbackError) out.error = "invalid_fallback";
  else if (err instanceof ElicitationRequestError) {
    Object.assign(out, { error: "request_error", code: err.code, message: err.rpcMessage, data: err.data });
  } else if (err instanceof ConnectionClosedError) out.error = "connection";
  else out.error = "internal";
  return out;
}

const conn = serve(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await conn.closed;
// Let a pending turn log its outcome, then exit even if a fallback still waits.
setTimeout(() => process.exit(0), 100).unref();
