// The agent kit in one process: an SDK client drives serveAgent, and the
// outcome it reports holds the offered value exactly, big integers included.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { serveAgent, Value } from "acpconform-kit";

// pipe gives the two ends of an in-memory connection as SDK streams.
function pipe() {
  const [toAgent, toClient] = [new TransformStream(), new TransformStream()];
  return [
    { readable: toAgent.readable, writable: toClient.writable },
    { readable: toClient.readable, writable: toAgent.writable },
  ];
}

// probe runs one prompt against an agent of askChoice, its client answering
// each elicitation/create with answer, and returns the outcome's text.
async function probe(askChoice, request, answer, { capabilities = { elicitation: { form: {} } }, cancelWhen, createElicitation } = {}) {
  const [agentEnd, clientEnd] = pipe();
  const conn = serveAgent(agentEnd, { askChoice, createElicitation });
  const texts = [];
  const app = acp
    .client({ name: "test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => texts.push(params.update.content.text))
    .onRequest(acp.methods.client.elicitation.create, ({ params, signal }) => answer(params, signal));
  const { stopReason } = await app.connectWith(clientEnd, async (agent) => {
    await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: capabilities });
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] });
    const turn = agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: request }] });
    cancelWhen?.then(() => agent.notify(acp.methods.agent.session.cancel, { sessionId }));
    return turn;
  });
  conn.close?.();
  return { stopReason, texts };
}

// bounded ends a test that waits too long: nothing here should take a second.
const bounded = { timeout: 10_000 };

const bigChoices = '{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":9007199254740992,"label":"A"},{"value":{"n":9007199254740993},"label":"B"}]}';

test("an offered value comes back as the kit's object and is written exactly", bounded, async () => {
  let offered;
  const askChoice = async ({ session, choices, signal }) => {
    offered = choices.map((c) => c.value);
    const res = await session.client.request(
      acp.methods.client.elicitation.create,
      { sessionId: session.sessionId, mode: "form", message: "Q", requestedSchema: { type: "object", properties: {} } },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
    return { status: "accepted", value: choices[Number(res.content.pick)].value };
  };
  const { stopReason, texts } = await probe(askChoice, bigChoices, () => ({ action: "accept", content: { pick: "1" } }));
  assert.equal(stopReason, "end_turn");
  assert.ok(offered.every((v) => v instanceof Value));
  assert.equal(String(offered[1]), '{"n":9007199254740993}');
  assert.deepEqual(texts, ['{"acpconform":1,"outcome":"accepted","index":1,"value":{"n":9007199254740993}}']);
});

test("a fallback's value is a copy, matched with equal; a copy returned is index -1", bounded, async () => {
  const request = '{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":9007199254740993,"label":"A"}],"fallback":{"kind":"accepted","value":9007199254740993}}';
  const askChoice = async ({ choices, fallback, equal }) => {
    const res = await fallback();
    assert.ok(equal(choices[0].value, res.value) && choices[0].value !== res.value);
    return res; // the fallback's copy, not the offered value: a mistake the outcome shows
  };
  const { texts } = await probe(askChoice, request, () => ({ action: "cancel" }), { capabilities: {} });
  assert.deepEqual(texts, ['{"acpconform":1,"outcome":"accepted","index":-1,"value":9007199254740993}']);
});

test("a JSON-RPC error in the cause chain is a request_error with its code, message and data", bounded, async () => {
  const askChoice = async ({ session, signal }) => {
    try {
      await session.client.request(acp.methods.client.elicitation.create, { sessionId: session.sessionId, mode: "form", message: "Q", requestedSchema: { type: "object", properties: {} } }, { cancellationSignal: signal });
    } catch (err) {
      throw new Error("wrapped", { cause: err });
    }
  };
  const { texts } = await probe(askChoice, bigChoices, () => {
    throw new acp.RequestError(4242, "Editor busy", { retry: true });
  });
  assert.deepEqual(texts, ['{"acpconform":1,"outcome":"error","error":"request_error","code":4242,"message":"Editor busy","data":{"retry":true}}']);
});

test("a cancelled turn ends cancelled, without an outcome, even when the call ignores its signal", bounded, async () => {
  let resolve;
  const running = new Promise((r) => (resolve = r));
  const askChoice = () => (resolve(), new Promise(() => {})); // never settles
  const { stopReason, texts } = await probe(askChoice, bigChoices, () => ({ action: "cancel" }), { cancelWhen: running });
  assert.equal(stopReason, "cancelled");
  assert.deepEqual(texts, []);
});

test("a prompt that is no probe request is -32602", bounded, async () => {
  await assert.rejects(probe(async () => ({ status: "declined" }), "hello", () => ({ action: "cancel" })), { code: -32602 });
});

test("without createElicitation, op create_elicitation is not offered, in either mode", bounded, async () => {
  for (const request of [
    '{"acpconform":1,"op":"create_elicitation","mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}',
    '{"acpconform":1,"op":"create_elicitation","mode":"url","message":"m","url":"https://example.com/","elicitationId":"e1"}',
  ]) {
    const sent = [];
    const { stopReason, texts } = await probe(async () => ({ status: "declined" }), request, (params) => sent.push(params), {
      capabilities: { elicitation: { form: {}, url: {} } },
    });
    assert.equal(stopReason, "end_turn");
    assert.deepEqual(sent, []);
    assert.equal(texts.length, 1);
    const o = JSON.parse(texts[0]);
    assert.equal(o.outcome, "error");
    assert.equal(o.error, "not_offered");
    assert.match(o.message, /create_elicitation/);
  }
});

// elicited runs one create_elicitation probe whose feature returns result
// as it is, and returns the outcome's text.
async function elicited(result, { mode = "form" } = {}) {
  const request =
    mode === "form"
      ? '{"acpconform":1,"op":"create_elicitation","mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}'
      : '{"acpconform":1,"op":"create_elicitation","mode":"url","message":"m","url":"https://example.com/","elicitationId":"e1"}';
  const { texts } = await probe(async () => ({ status: "declined" }), request, () => ({ action: "cancel" }), {
    createElicitation: async () => result,
  });
  assert.equal(texts.length, 1);
  return texts[0];
}

test("a create_elicitation's result reaches the outcome as returned, content on a decline included", bounded, async () => {
  // What the feature returns is the outcome, wrong or not: the kit drops,
  // fills in and validates nothing, so that the catalogue can judge it.
  assert.equal(await elicited({ action: "decline", content: { name: "Ada" } }), '{"acpconform":1,"outcome":"declined","content":{"name":"Ada"}}');
  assert.equal(await elicited({ status: "cancelled", content: { age: 36 } }), '{"acpconform":1,"outcome":"cancelled","content":{"age":36}}');
  assert.equal(await elicited({ action: "accept", content: { token: "t" } }, { mode: "url" }), '{"acpconform":1,"outcome":"accepted","content":{"token":"t"}}');
  assert.equal(await elicited({ action: "decline", content: null }), '{"acpconform":1,"outcome":"declined"}');
});

test("what no outcome can say is an error naming what the feature returned", bounded, async () => {
  const outcome = async (result) => JSON.parse(await elicited(result));
  let o = await outcome({ action: "_defer", content: { x: 1 } });
  assert.equal(o.error, "invalid_response");
  assert.match(o.message, /"_defer"/);
  o = await outcome({ action: "constructor" }); // a name Object.prototype has is no action either
  assert.equal(o.error, "invalid_response");
  o = await outcome({ content: { x: 1 } });
  assert.equal(o.error, "internal");
  assert.match(o.message, /no result with a status or an action: \{"content":\{"x":1\}\}/);
  o = await outcome({ action: "accept", content: { age: NaN } }); // never written as null
  assert.equal(o.error, "internal");
  assert.match(o.message, /cannot be written in the outcome: at \/content\/age: NaN is not JSON/);
});

test("an accepted ask_choice result without a value is no choice, not the null one", bounded, async () => {
  const request = '{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":null,"label":"Nothing"}],"fallback":{"kind":"declined"}}';
  const { texts } = await probe(async () => ({ status: "accepted" }), request, () => ({ action: "cancel" }), { capabilities: {} });
  const o = JSON.parse(texts[0]);
  assert.equal(o.error, "internal");
  assert.match(o.message, /accepted result without a value/);
});
