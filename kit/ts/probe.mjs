// The probe contract of docs/probe.md §1 in JavaScript: reading a probe
// request and writing an outcome, with JSON values kept exact (json.mjs).
// The probe request is a string inside the prompt, so the SDK's own
// JSON.parse of the frame does not touch its numbers: they are parsed here.

import { JsonNumber, parseJSON, stringify, toPlain } from "./json.mjs";

/**
 * parseRequest reads a probe request, or throws an Error saying why text is
 * not one. Like Go's decoding, null stands for an absent member, and a member
 * of the wrong type is an error. An ask_choice request gives {op, question,
 * choices, fallback, fallbackDelayMs}, a create_elicitation one (§1.9) {op,
 * mode, message} and requestedSchema (form) or url and elicitationId (url).
 */
export function parseRequest(text) {
  let r;
  try {
    r = parseJSON(text);
  } catch (err) {
    throw new Error(`not an acpconform probe request: ${err.message}`);
  }
  const fail = (what) => {
    throw new Error(`not an acpconform probe request: ${what}`);
  };
  const member = (obj, key, type, where) => {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    const ok = { string: typeof v === "string", boolean: typeof v === "boolean", object: isObject(v), array: Array.isArray(v), int: isInt(v) }[type];
    if (!ok) fail(`${where}${key} is not ${{ string: "a string", boolean: "a boolean", object: "an object", array: "an array", int: "an integer" }[type]}`);
    return type === "int" ? Number(v.text) : v;
  };
  if (!isObject(r)) fail("not a JSON object");
  const version = member(r, "acpconform", "int", "") ?? 0;
  const op = member(r, "op", "string", "") ?? "";
  if (version !== 1) fail(`acpconform is ${version}, want 1`);
  if (op === "create_elicitation") return parseCreateElicitation(r, member, fail);
  if (op !== "ask_choice") {
    throw new Error(`unknown probe op ${JSON.stringify(op)} (want "ask_choice" or "create_elicitation")`);
  }
  const question = member(r, "question", "string", "") ?? "";
  const choices = (member(r, "choices", "array", "") ?? []).map((c, i) => {
    const where = `choices[${i}].`;
    if (c !== null && !isObject(c)) fail(`choices[${i}] is not an object`);
    c ??= {};
    return {
      value: c.value ?? null, // absent is null, as in the Go adapter
      label: member(c, "label", "string", where) ?? "",
      description: member(c, "description", "string", where), // undefined when absent
      default: member(c, "default", "boolean", where) ?? false,
    };
  });
  let fallback = member(r, "fallback", "object", "");
  if (fallback) {
    fallback = {
      kind: member(fallback, "kind", "string", "fallback.") ?? "",
      value: fallback.value ?? null,
      message: member(fallback, "message", "string", "fallback.") ?? "",
    };
  }
  const fallbackDelayMs = member(r, "fallbackDelayMs", "int", "") ?? 0;
  return { op, question, choices, fallback: fallback ?? null, fallbackDelayMs };
}

function parseCreateElicitation(r, member, fail) {
  const mode = member(r, "mode", "string", "");
  const message = member(r, "message", "string", "");
  if (mode !== "form" && mode !== "url") {
    fail(mode === undefined ? "no mode" : `mode is ${JSON.stringify(mode)}, want "form" or "url"`);
  }
  if (message === undefined) fail("no message");
  if (mode === "url") {
    const url = member(r, "url", "string", "");
    const elicitationId = member(r, "elicitationId", "string", "");
    if (url === undefined || elicitationId === undefined) fail("a URL elicitation without url and elicitationId");
    return { op: "create_elicitation", mode, message, url, elicitationId };
  }
  const schema = member(r, "requestedSchema", "object", "");
  if (schema === undefined) fail("a form without a requestedSchema");
  // The schema goes out through the SDK, which writes JSON.stringify of
  // JavaScript values: each number becomes a JS number, which is refused
  // rather than sent changed when it cannot carry the value as written.
  return { op: "create_elicitation", mode, message, requestedSchema: toPlain(schema) };
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonNumber);
// An integer as Go's int reads it: no fraction, no exponent, within int64.
const isInt = (v) =>
  v instanceof JsonNumber && /^-?[0-9]+$/.test(v.text) && BigInt(v.text) >= -(2n ** 63n) && BigInt(v.text) < 2n ** 63n;

/**
 * formatOutcome writes an outcome report (docs/probe.md §1, step 5), members
 * in the documented order, absent ones left out.
 */
export function formatOutcome(o) {
  const { acpconform = 1, outcome, index, value, content, error, code, message, data, warnings } = o;
  return stringify({
    acpconform,
    outcome,
    index,
    value,
    content: content ?? undefined, // an accepted form's only
    error,
    code,
    message: outcome === "error" ? message ?? "" : undefined, // an error always says its message, "" included
    data: data ?? undefined, // null data is no data, as in Go
    warnings: warnings?.length ? warnings : undefined,
  });
}
