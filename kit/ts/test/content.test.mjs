// contentProblems: the kit's judge of a form's content, as the catalogue's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { contentProblems } from "acpconform-kit";

const schema = {
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 1, maxLength: 5 },
    age: { type: "integer", minimum: 0, maximum: 150 },
    tags: { type: "array", maxItems: 2, items: { type: "string", enum: ["go", "ts"] } },
  },
};

test("valid content has no problem: bounds inclusive, lengths in code points", () => {
  assert.deepEqual(contentProblems(schema, { name: "Ada🧮!", age: 150, tags: ["go", "ts"] }), []);
});

test("a property the form does not declare is valid when it holds a content value", () => {
  assert.deepEqual(contentProblems(schema, { name: "Ada", nickname: "A", extra: ["x"] }), []);
  assert.equal(contentProblems(schema, { name: "Ada", extra: { deep: 1 } }).length, 1);
});

test("each broken keyword is one problem, and a missing required property another", () => {
  assert.equal(contentProblems(schema, { age: 36.5, tags: ["py"] }).length, 3);
  assert.equal(contentProblems(schema, null).length, 1);
  assert.equal(contentProblems(schema, "Ada").length, 1);
});
