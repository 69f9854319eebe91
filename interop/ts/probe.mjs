// The probe contract of docs/probe.md §1 in JavaScript: reading a probe
// request and writing an outcome, with JSON values kept exact.
//
// Probe values are any JSON and two values are the same when equal as JSON
// (probe.SameValue in Go): 9007199254740993 differs from 9007199254740992 and
// 1.0 equals 1e0. JSON.parse would round such numbers, so values are parsed
// here with numbers kept as their text (JsonNumber). The probe request is a
// string inside the prompt, so the SDK's own JSON.parse of the frame does not
// touch its numbers.

/** A JSON number, kept exactly as written. */
export class JsonNumber {
  constructor(text) {
    this.text = text;
  }
}

/**
 * parseJSON is JSON.parse with numbers as JsonNumber and objects without a
 * prototype (so "__proto__" is an ordinary key). Duplicate keys: the last wins.
 */
export function parseJSON(text) {
  JSON.parse(text); // rejects what is not JSON, with the usual SyntaxError
  let i = 0;
  const take = (re) => {
    re.lastIndex = i;
    const m = re.exec(text)[0];
    i += m.length;
    return m;
  };
  const space = /[ \t\n\r]*/y;
  const string = /"(?:[^"\\]|\\.)*"/y;
  const number = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  const value = () => {
    take(space);
    const c = text[i];
    if (c === "{" || c === "[") {
      const isObject = c === "{";
      const out = isObject ? Object.create(null) : [];
      i++;
      take(space);
      if (text[i] === (isObject ? "}" : "]")) return i++, out;
      for (;;) {
        if (isObject) {
          take(space);
          const key = JSON.parse(take(string));
          take(space);
          i++; // ':'
          out[key] = value();
        } else {
          out.push(value());
        }
        take(space);
        if (text[i++] !== ",") return out; // '}' or ']'
      }
    }
    if (c === '"') return JSON.parse(take(string));
    for (const [word, v] of [["true", true], ["false", false], ["null", null]]) {
      if (text.startsWith(word, i)) return (i += word.length), v;
    }
    return new JsonNumber(take(number));
  };
  return value();
}

/** stringify writes a value of parseJSON (or plain JSON data) as compact JSON; undefined members are left out. */
export function stringify(v) {
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map(stringify).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const members = Object.keys(v).filter((k) => v[k] !== undefined);
    return `{${members.map((k) => JSON.stringify(k) + ":" + stringify(v[k])).join(",")}}`;
  }
  return JSON.stringify(v);
}

/** sameValue: equal as JSON, as probe.SameValue. Numbers compare by exact value. */
export function sameValue(a, b) {
  if (a instanceof JsonNumber || b instanceof JsonNumber) {
    return a instanceof JsonNumber && b instanceof JsonNumber && sameNumber(a.text, b.text);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (a !== null && typeof a === "object") {
    if (b === null || typeof b !== "object") return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  return a === b;
}

const NUMBER = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

function sameNumber(x, y) {
  // As in Go: numbers with an exponent beyond ±1000 compare as text, so that
  // no comparison costs unbounded work.
  const huge = (t) => Math.abs(Number(NUMBER.exec(t)[4] ?? 0)) > 1000;
  if (huge(x) || huge(y)) return x === y;
  return canonical(x) === canonical(y);
}

// canonical writes a number as sign, significant digits and exponent: equal
// values, however spelled, give the same string.
function canonical(text) {
  const [, sign, int, frac = "", exp = "0"] = NUMBER.exec(text);
  const digits = (int + frac).replace(/^0+/, "");
  if (digits === "") return "0"; // -0 == 0
  const significant = digits.replace(/0+$/, "");
  return `${sign}${significant}e${Number(exp) - frac.length + (digits.length - significant.length)}`;
}

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
      description: member(c, "description", "string", where) ?? "",
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

/**
 * toPlain turns a value of parseJSON into plain JavaScript data, each number
 * a JS number. It throws for a number that a JS number does not carry, one
 * that JSON.stringify would not write back as the same value
 * (9007199254740993, 1e400).
 */
export function toPlain(v) {
  if (v instanceof JsonNumber) {
    const n = Number(v.text);
    if (!Number.isFinite(n) || !sameNumber(String(n), v.text)) {
      throw new Error(`the number ${v.text.slice(0, 40)} cannot be sent as written: a JS number would change it`);
    }
    return n;
  }
  if (Array.isArray(v)) return v.map(toPlain);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  }
  return v;
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
