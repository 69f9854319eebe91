// content.mjs: contentProblems, the kit's judge of an accepted form's
// content against its requestedSchema, as acpconform's catalogue judges it
// (the Go reference's ContentProblems, docs/probe.md §1.9). Opt-in: the kit
// never calls it for you; your createElicitation calls it where ACP says an
// agent SHOULD validate again (ELI-3), and reports what it finds as
// invalid_response.

/**
 * contentProblems says how an accepted form's content fails its requestedSchema, as ACP schema
 * 1.21.0 reads a form: content is an object (or absent or null, the same) whose properties hold
 * content values, each required one present, each declared one of its property's type and within
 * its bounds, formats and offered values. A property the form does not declare is valid if it
 * holds a content value: the schema does not forbid it (contract revision 5). Integers are judged
 * by value (36.0 is 36), bounds are inclusive, lengths in code points, a pattern an unanchored
 * ECMA-262 regular expression. [] when the content satisfies the schema.
 */
export function contentProblems(schema, content) {
  const properties = isObject(schema?.properties) ? schema.properties : {};
  const required = Array.isArray(schema?.required) ? schema.required : [];
  if (content == null) content = {}; // absent and null are the same
  if (!isObject(content)) return [`the content is not a JSON object: ${show(content)}`];
  const problems = [];
  for (const name of Object.keys(content).sort()) {
    const problem = Object.hasOwn(properties, name)
      ? propertyProblem(properties[name], content[name])
      : isContentValue(content[name])
        ? ""
        : `is ${show(content[name])}, a property the form does not declare holding no elicitation content value`;
    if (problem) problems.push(`${show(name)} ${problem}`);
  }
  for (const name of required) {
    if (!Object.hasOwn(content, name)) problems.push(`the required property ${show(name)} is missing`);
  }
  return problems;
}

// propertyProblem says how value fails the property p; "" when it does not.
function propertyProblem(p, value) {
  if (!isObject(p)) return ""; // a property we cannot read constrains nothing
  const is = `is ${show(value)}`;
  switch (p.type) {
    case "string":
      return typeof value === "string" ? stringProblem(p, value) : `${is}, want a string`;
    case "number":
    case "integer":
      if (!isNumber(value)) return `${is}, want ${p.type === "integer" ? "an integer" : "a number"}`;
      if (p.type === "integer" && !Number.isInteger(value)) return `${is}, want an integer`; // 36.0 is one
      if (value < num(p.minimum)) return `${is}, below the minimum ${p.minimum}`;
      if (value > num(p.maximum)) return `${is}, above the maximum ${p.maximum}`;
      return "";
    case "boolean":
      return typeof value === "boolean" ? "" : `${is}, want a boolean`;
    case "array": {
      if (!isStringArray(value)) return `${is}, want an array of strings`;
      if (value.length < num(p.minItems)) return `has ${value.length} items, fewer than minItems ${p.minItems}`;
      if (value.length > num(p.maxItems)) return `has ${value.length} items, more than maxItems ${p.maxItems}`;
      const allowed = offered(p.items);
      const other = allowed ? value.find((item) => !allowed.includes(item)) : undefined;
      return other === undefined ? "" : `has the item ${show(other)}, none of the offered ${show(allowed)}`;
    }
  }
  // A custom or future type: any content value.
  return isContentValue(value) ? "" : `${is}, which is no elicitation content value (string, number, boolean or array of strings)`;
}

// stringProblem says how s fails a string property's offered values, bounds, pattern and format.
function stringProblem(p, s) {
  const allowed = offered(p);
  if (allowed && !allowed.includes(s)) return `is ${show(s)}, none of the offered ${show(allowed)}`;
  const length = [...s].length; // in code points, as JSON Schema counts
  if (length < num(p.minLength)) return `is ${length} characters long, shorter than minLength ${p.minLength}`;
  if (length > num(p.maxLength)) return `is ${length} characters long, longer than maxLength ${p.maxLength}`;
  if (typeof p.pattern === "string" && matches(p.pattern, s) === false) {
    return `is ${show(s)}, which does not match the pattern ${show(p.pattern)}`;
  }
  if (Object.hasOwn(FORMATS, p.format) && !FORMATS[p.format](s)) {
    return `is ${show(s)}, not of the format ${show(p.format)}`;
  }
  return "";
}

// offered lists the values a single-select (enum, or oneOf consts) or the
// items of a multi-select (enum, or anyOf consts) allow; undefined for none.
function offered(p) {
  if (Array.isArray(p?.enum)) return p.enum;
  const options = Array.isArray(p?.oneOf) ? p.oneOf : Array.isArray(p?.anyOf) ? p.anyOf : undefined;
  return options?.map((o) => o?.const);
}

// matches tests an ECMA-262 pattern (unanchored, as JSON Schema reads it); a
// pattern that does not compile is not held against the value: undefined.
function matches(pattern, s) {
  try {
    return new RegExp(pattern, "u").test(s);
  } catch {
    return undefined;
  }
}

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const EMAIL = new RegExp(`^${ATOM}(?:\\.${ATOM})*@${ATOM}(?:\\.${ATOM})*$`); // an RFC 5322 addr-spec of dot-atoms
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x20\x7f]*$/; // a scheme, and no space or control character
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
// RFC 3339: date, time with optional fraction, offset.
const DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:Z|[+-]([0-9]{2}):([0-9]{2}))$/;

// The string formats of schema 1.21.0, read as the Go reference reads them; a
// format not named here holds any string.
const FORMATS = {
  email: (s) => EMAIL.test(s),
  uri: (s) => URI.test(s),
  date: (s) => {
    const m = DATE.exec(s);
    return m !== null && isDate(+m[1], +m[2], +m[3]);
  },
  "date-time": (s) => {
    const m = DATE_TIME.exec(s);
    if (m === null) return false;
    const [y, mo, d, h, mi, sec, oh = "0", om = "0"] = m.slice(1);
    return isDate(+y, +mo, +d) && +h < 24 && +mi < 60 && +sec < 60 && +oh < 24 && +om < 60;
  },
};

function isDate(y, m, d) {
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return m >= 1 && m <= 12 && d >= 1 && d <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

// JSON.parse reads 1e400 as Infinity, which JSON cannot write back: no number.
const isNumber = (v) => typeof v === "number" && Number.isFinite(v);
const num = (v) => (typeof v === "number" ? v : undefined); // a bound that is no number bounds nothing
const isStringArray = (v) => Array.isArray(v) && v.every((item) => typeof item === "string");
const isContentValue = (v) => typeof v === "string" || typeof v === "boolean" || isNumber(v) || isStringArray(v);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// show writes a value for a message, cut to 80 characters.
function show(v) {
  const s = typeof v === "number" ? String(v) : (JSON.stringify(v) ?? String(v));
  return s.length <= 80 ? s : `${s.slice(0, 77)}...`;
}
