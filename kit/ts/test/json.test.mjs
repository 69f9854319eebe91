// Exact JSON: what JSON.parse would round must survive a round trip and compare exactly.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseJSON, stringify, sameValue, toPlain } from "acpconform-kit/json";

test("numbers are written back as they were written", () => {
  const text = '{"big":9007199254740993,"list":[1.0,1e400,-0],"__proto__":"a key"}';
  assert.equal(stringify(parseJSON(text)), text);
});

test("sameValue is equality as JSON, exactly", () => {
  const same = (a, b) => sameValue(parseJSON(a), parseJSON(b));
  assert.ok(same("1", "1.0") && same("1e0", "10e-1") && same("0", "-0"));
  assert.ok(same('{"a":1,"b":[2]}', '{"b":[2.0],"a":1}'));
  assert.ok(!same("9007199254740993", "9007199254740992"));
  assert.ok(!same("true", "1") && !same('"1"', "1") && !same("null", "false") && !same("[1,2]", "[2,1]"));
});

test("toPlain refuses a number a JS number would change", () => {
  assert.deepEqual(toPlain(parseJSON('{"max":150,"x":1.0e2}')), { max: 150, x: 100 });
  assert.throws(() => toPlain(parseJSON("9007199254740993")), /cannot be sent as written/);
  assert.throws(() => toPlain(parseJSON("1e400")), /cannot be sent as written/);
});

test("stringify refuses what JSON cannot carry instead of writing something else", () => {
  assert.throws(() => stringify({ a: [1, NaN] }), /at \/a\/1: NaN is not JSON/);
  assert.throws(() => stringify({ a: Infinity }), /at \/a: Infinity is not JSON/);
  assert.throws(() => stringify([undefined]), /at \/0: undefined is not JSON/);
  assert.throws(() => stringify({ m: new Map() }), /at \/m: a Map is not JSON/);
  assert.throws(() => stringify(1n), /a bigint is not JSON/);
  assert.equal(stringify({ a: undefined, d: new Date(0) }), '{"d":"1970-01-01T00:00:00.000Z"}');
});
