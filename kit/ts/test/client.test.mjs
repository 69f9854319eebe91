// The client kit's test mode: the answer each scripted-user instruction asks for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { answerAsInstructed } from "acpconform-kit";

const typedChoice = (user) => ({
  sessionId: "s1",
  mode: "form",
  message: "Pick",
  requestedSchema: {
    type: "object",
    required: ["choice"],
    properties: { choice: { type: "string", default: "choice_1", oneOf: [{ const: "choice_0" }, { const: "choice_1" }] } },
  },
  ...(user && { _meta: { "acpconform/user": user } }),
});
const form = (user) => ({ sessionId: "s1", mode: "form", message: "Tell", requestedSchema: { type: "object", properties: { age: { type: "integer" } } }, _meta: { "acpconform/user": user } });
const url = (user) => ({ sessionId: "s1", mode: "url", message: "Go", url: "https://x.test", elicitationId: "e1", _meta: { "acpconform/user": user } });
const invalidParams = { code: -32602 };

test("accept answers the picked option, the default, the content, or nothing for a URL", async () => {
  assert.deepEqual(await answerAsInstructed(typedChoice({ action: "accept", pick: 0 })), { action: "accept", content: { choice: "choice_0" } });
  assert.deepEqual(await answerAsInstructed(typedChoice({ action: "accept", pick: "default" })), { action: "accept", content: { choice: "choice_1" } });
  assert.deepEqual(await answerAsInstructed(form({ action: "accept", content: { age: 36 } })), { action: "accept", content: { age: 36 } });
  assert.deepEqual(await answerAsInstructed(url({ action: "accept" })), { action: "accept" });
});

test("decline and cancel carry no content; no instruction is the UI's to answer", async () => {
  assert.deepEqual(await answerAsInstructed(form({ action: "decline" })), { action: "decline" });
  assert.deepEqual(await answerAsInstructed(url({ action: "cancel" })), { action: "cancel" });
  assert.equal(await answerAsInstructed(typedChoice(undefined)), undefined);
});

test("wait answers cancel once the signal aborts", async () => {
  const cancel = new AbortController();
  let settled = false;
  const answer = answerAsInstructed(form({ action: "wait" }), { signal: cancel.signal }).finally(() => (settled = true));
  await new Promise(setImmediate);
  assert.equal(settled, false, "a wait answered before its cancel");
  cancel.abort();
  assert.deepEqual(await answer, { action: "cancel" });
});

test("an instruction it cannot follow, or a mode not advertised, is -32602", async () => {
  await assert.rejects(answerAsInstructed(typedChoice({ action: "accept", pick: 2 })), invalidParams);
  await assert.rejects(answerAsInstructed(typedChoice({ action: "accept", content: {} })), invalidParams);
  await assert.rejects(answerAsInstructed(form({ action: "accept", pick: 0 })), invalidParams);
  await assert.rejects(answerAsInstructed(url({ action: "accept", content: {} })), invalidParams);
  await assert.rejects(answerAsInstructed(form({ action: "shrug" })), invalidParams);
  await assert.rejects(answerAsInstructed(url({ action: "accept" }), { elicitation: { form: {} } }), invalidParams);
});
