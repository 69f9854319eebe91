// Exact JSON for JavaScript: numbers kept as the text they were written in.
//
// Probe values are any JSON, and two values are the same when they are equal
// as JSON (docs/probe.md §1.7, probe.SameValue in Go): 9007199254740993
// differs from 9007199254740992, and 1.0 equals 1e0. JSON.parse rounds such
// numbers, so this module parses with each number kept as a JsonNumber, and
// writes it back as that text.
//
//   import { parseJSON, stringify, sameValue } from "acpconform-kit/json";
//   stringify(parseJSON('{"n": 9007199254740993}'))  // '{"n":9007199254740993}'

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

/**
 * stringify writes a value of parseJSON, or plain JSON data, as compact JSON;
 * undefined members are left out, and an object with toJSON is written as
 * what it returns, as JSON.stringify does. A JsonNumber is written as its
 * text. What JSON cannot carry is refused with a TypeError naming where it
 * is, never written as something else: NaN, Infinity, a bigint, a function,
 * a symbol, undefined in an array or alone, a Map or a Set.
 */
export function stringify(v) {
  return write(v, "");
}

function write(v, at) {
  const refuse = (what) => {
    throw new TypeError(`${at === "" ? "" : `at ${at}: `}${what} is not JSON`);
  };
  if (v instanceof JsonNumber) return v.text;
  switch (typeof v) {
    case "string":
    case "boolean":
      return JSON.stringify(v);
    case "number":
      return Number.isFinite(v) ? JSON.stringify(v) : refuse(String(v));
    case "object":
      break;
    default:
      return refuse(typeof v === "undefined" ? "undefined" : `a ${typeof v}`);
  }
  if (v === null) return "null";
  if (typeof v.toJSON === "function") return write(v.toJSON(), at);
  if (Array.isArray(v)) return `[${v.map((x, i) => write(x, `${at}/${i}`)).join(",")}]`;
  if (v instanceof Map || v instanceof Set) refuse(`a ${v.constructor.name}`);
  const members = Object.keys(v).filter((k) => v[k] !== undefined);
  return `{${members.map((k) => JSON.stringify(k) + ":" + write(v[k], `${at}/${k}`)).join(",")}}`;
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

/** sameNumber says whether two JSON number texts denote the same value. */
export function sameNumber(x, y) {
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
