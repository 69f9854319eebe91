#!/usr/bin/env node
// A stdio relay on @agentclientprotocol/sdk 2.4.0 (docs/probe.md §3): it
// serves ACP to its client on its own stdin/stdout with the SDK's agent app,
// spawns AGENT_COMMAND_LINE with `sh -c` and talks to it with the SDK's
// client app. Every message is decoded by the SDK (params through its zod
// schemas) and encoded again: each typed ACP method is forwarded through the
// SDK's typed API, any other method generically. The SDK renumbers requests;
// `$/cancel_request` crosses by aborting the handler's signal, which the SDK
// turns into a `$/cancel_request` for the id the other side saw.
//
//   node relay.mjs AGENT_COMMAND_LINE
//
// Numbers stay exact: lines are parsed with acpconform-kit's parseJSON, and a
// number becomes a JS number only when that loses nothing; the others stay
// JsonNumber and are written back as their text.
// Known limit: such a number in a field the schema types as a number (not
// in `_meta` or another free-form value) fails the SDK's validation (-32602).

import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { JsonNumber, parseJSON, stringify } from "acpconform-kit/json";

if (process.argv.length !== 3) {
  process.stderr.write("usage: node relay.mjs AGENT_COMMAND_LINE\n");
  process.exit(2);
}

// --- Messages with exact numbers -------------------------------------------

const NUMBER = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

// canonical writes sign, significant digits and exponent of a decimal:
// equal values give equal strings.
function canonical(sign, digits, exp) {
  digits = digits.replace(/^0+/, "");
  if (digits === "") return "0";
  const significant = digits.replace(/0+$/, "");
  return `${sign}${significant}e${exp + digits.length - significant.length}`;
}

// exact is the canonical form of a finite double's exact decimal value.
function exact(n) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, n);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let m = bits & ((1n << 52n) - 1n);
  let e = -1074; // n = m * 2^e
  if (biased !== 0) [m, e] = [m | (1n << 52n), biased - 1075];
  const sign = bits >> 63n ? "-" : "";
  return e >= 0 ? canonical(sign, (m << BigInt(e)).toString(), 0) : canonical(sign, (m * 5n ** BigInt(-e)).toString(), e);
}

// plain turns a JsonNumber into a JS number when that loses nothing.
function plain(num) {
  const n = Number(num.text);
  if (!Number.isFinite(n)) return num;
  const [, sign, int, frac = "", exp = "0"] = NUMBER.exec(num.text);
  return canonical(sign, int + frac, Number(exp) - frac.length) === exact(n) ? n : num;
}

function toPlain(v) {
  if (v instanceof JsonNumber) return plain(v);
  if (v !== null && typeof v === "object") for (const k of Object.keys(v)) v[k] = toPlain(v[k]);
  return v;
}

// jsonStream is the SDK's Stream (message readable, message writable) over
// newline-delimited JSON on a byte source and a Node writable.
function jsonStream(source, sink, name) {
  let buffered = "";
  const messages = new TransformStream({
    async transform(chunk, controller) {
      const lines = (buffered + chunk).split("\n");
      buffered = lines.pop();
      for (const line of lines) await enqueue(line, controller);
    },
    flush: (controller) => enqueue(buffered, controller),
  });
  async function enqueue(line, controller) {
    if (!line.trim()) return;
    let message;
    try {
      message = toPlain(parseJSON(line));
    } catch (err) {
      process.stderr.write(`relay: ${name} sent a line that is not JSON: ${err.message}\n`);
      write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      return;
    }
    controller.enqueue(message);
    // Let the SDK dispatch this message, down to its forwarded copy being
    // written, before it sees the next: messages keep their order (REL-4).
    await new Promise(setImmediate);
  }
  function write(message) {
    if (!sink.writableEnded) sink.write(stringify(message) + "\n");
  }
  return {
    // TextDecoderStream keeps a character whose bytes a read boundary splits.
    readable: source.pipeThrough(new TextDecoderStream()).pipeThrough(messages),
    writable: new WritableStream({ write }),
  };
}

// --- The two connections ---------------------------------------------------

const agentProcess = spawn("sh", ["-c", process.argv[2]], { stdio: ["pipe", "pipe", "inherit"], detached: true });
agentProcess.stdin.on("error", () => {}); // EPIPE once the agent is gone: its exit closes the relay

// Forwarding: the handler's signal aborts on `$/cancel_request` (and on
// close); as cancellationSignal it makes the SDK cancel the forwarded request.
// An error answer rejects with a RequestError, which the SDK answers with the
// same code, message and data.
const forward = (to) => ({ method, params, signal }) => to().request(method, params, { cancellationSignal: signal });
const notify = (to) => ({ method, params }) => to().notify(method, params);

const A = acp.methods.agent;
const C = acp.methods.client;
const toAgent = () => agentSide.agent; // ClientContext: calls the agent
const toClient = () => clientSide.client; // AgentContext: calls the client

const agentApp = acp.agent({ name: "relay" });
for (const m of [A.initialize, A.authenticate, A.logout, ...Object.values(A.session)]) {
  if (m === A.session.cancel) agentApp.onNotification(m, notify(toAgent));
  else agentApp.onRequest(m, forward(toAgent));
}
agentApp.onRequest("*", forward(toAgent)).onNotification("*", (cx) => {
  // $/cancel_request was handled by the SDK (it aborted the signal above).
  if (cx.method !== acp.PROTOCOL_METHODS.cancel_request) return notify(toAgent)(cx);
});

const clientApp = acp.client({ name: "relay" });
for (const m of [C.session.requestPermission, ...Object.values(C.fs), ...Object.values(C.terminal), C.elicitation.create]) {
  clientApp.onRequest(m, forward(toClient));
}
clientApp.onNotification(C.session.update, notify(toClient)).onNotification(C.elicitation.complete, notify(toClient));
clientApp.onRequest("*", forward(toClient)).onNotification("*", (cx) => {
  if (cx.method !== acp.PROTOCOL_METHODS.cancel_request) return notify(toClient)(cx);
});

const clientSide = agentApp.connect(jsonStream(Readable.toWeb(process.stdin), process.stdout, "the client"));
const agentSide = clientApp.connect(jsonStream(Readable.toWeb(agentProcess.stdout), agentProcess.stdin, "the agent"));

// --- Shutdown: when one side goes away, close the other ---------------------

// Each connection closes the other at once, from its abort event: before the
// SDK rejects the requests in flight, so the relay neither answers them with
// an error of its own nor cancels them on the other side. Everything read
// before has been forwarded by then (see enqueue).
clientSide.signal.addEventListener("abort", () => agentSide.close());
agentSide.signal.addEventListener("abort", () => clientSide.close());
process.stdout.on("error", () => clientSide.close()); // EPIPE: the client is gone
agentProcess.on("exit", () => setTimeout(() => agentSide.close(), 200)); // stdout may outlive it in a grandchild

await Promise.all([clientSide.closed, agentSide.closed]);
agentProcess.stdin.end();
const exited = new Promise((resolve) => agentProcess.exitCode !== null || agentProcess.signalCode !== null ? resolve() : agentProcess.on("exit", resolve));
await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1000))]);
try {
  process.kill(-agentProcess.pid, "SIGKILL"); // the agent's process group
} catch {} // already gone
process.exit(0);
