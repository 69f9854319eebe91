package probe

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// checkRequest checks a decoded probe request against the rules of the
// request schema (probe/schema/request.json) that ParseRequest has not
// checked already, and says how it breaks them as a JSON Schema validator
// would: the offending value, the keyword's place in the schema file, and
// the problem in words, with the schema's own description where it states
// the rule.
func checkRequest(req map[string]any) []Mismatch {
	c := &requestCheck{}
	c.required("", "#", req, "acpconform", "op")
	op, hasOp := req["op"]
	if hasOp && op != OpAskChoice && op != OpCreateElicitation {
		c.add("/op", "#/properties/op/enum", fmt.Sprintf("want one of %s, %s, got %s", show(OpAskChoice), show(OpCreateElicitation), show(op)))
	}
	if op == OpCreateElicitation {
		c.elicitation(req)
		return c.found
	}
	c.required("", "#/allOf/0/then", req, "question", "choices")
	if q, ok := req["question"]; ok {
		c.typed("/question", "#/properties/question/type", q, "string")
	}
	if choices, ok := req["choices"]; ok && c.typed("/choices", "#/properties/choices/type", choices, "null", "array") {
		list, _ := choices.([]any)
		for i, choice := range list {
			c.choice("/choices/"+strconv.Itoa(i), choice)
		}
	}
	if f, ok := req["fallback"]; ok && c.typed("/fallback", "#/properties/fallback/type", f, "null", "object") {
		if obj, ok := f.(map[string]any); ok {
			c.fallback(obj)
		}
	}
	if d, ok := req["fallbackDelayMs"]; ok {
		if c.typed("/fallbackDelayMs", "#/properties/fallbackDelayMs/type", d, "integer") && isNegative(d.(json.Number)) {
			c.add("/fallbackDelayMs", "#/properties/fallbackDelayMs/minimum", fmt.Sprintf("want at least 0, got %s", show(d)))
		}
	}
	return c.found
}

// elicitation checks a create_elicitation request: its mode and message,
// and the form's schema or the URL's url and elicitationId.
func (c *requestCheck) elicitation(req map[string]any) {
	const then = "#/allOf/1/then"
	c.required("", then, req, "mode", "message")
	if m, ok := req["message"]; ok {
		c.typed("/message", "#/properties/message/type", m, "string")
	}
	for _, name := range []string{"url", "elicitationId"} {
		if v, ok := req[name]; ok {
			c.typed("/"+name, "#/properties/"+name+"/type", v, "string")
		}
	}
	if s, ok := req["requestedSchema"]; ok {
		c.typed("/requestedSchema", "#/properties/requestedSchema/type", s, "object")
	}
	switch mode, ok := req["mode"]; {
	case !ok:
	case mode == "form":
		c.required("", then+"/allOf/0/then", req, "requestedSchema")
	case mode == "url":
		c.required("", then+"/allOf/1/then", req, "url", "elicitationId")
	default:
		c.add("/mode", "#/properties/mode/enum", fmt.Sprintf(`want one of "form", "url", got %s`, show(mode)))
	}
}

func (c *requestCheck) choice(at string, v any) {
	const def = "#/$defs/choice"
	if !c.typed(at, def+"/type", v, "object") {
		return
	}
	choice := v.(map[string]any)
	c.required(at, def, choice, "value", "label")
	if l, ok := choice["label"]; ok {
		c.typed(at+"/label", def+"/properties/label/type", l, "string")
	}
	if d, ok := choice["description"]; ok && c.typed(at+"/description", def+"/properties/description/type", d, "string") && d == "" {
		c.add(at+"/description", def+"/properties/description/minLength", `want at least 1 character, got ""`)
	}
	if d, ok := choice["default"]; ok {
		c.typed(at+"/default", def+"/properties/default/type", d, "boolean")
	}
}

func (c *requestCheck) fallback(f map[string]any) {
	const def = "#/$defs/fallback"
	c.required("/fallback", def, f, "kind")
	kind, hasKind := f["kind"]
	if kinds := []any{FallbackAccepted, FallbackDeclined, FallbackCancelled, FallbackError, FallbackPlain}; hasKind && !slices.Contains(kinds, kind) {
		want := make([]string, len(kinds))
		for i, k := range kinds {
			want[i] = show(k)
		}
		c.add("/fallback/kind", def+"/properties/kind/enum", fmt.Sprintf("want one of %s, got %s", strings.Join(want, ", "), show(kind)))
	}
	if m, ok := f["message"]; ok {
		c.typed("/fallback/message", def+"/properties/message/type", m, "string")
	}
	// allOf/0 and allOf/1: what each kind must have, and must not.
	for i, rule := range []struct {
		member string
		kinds  []any
	}{{"value", []any{FallbackAccepted, FallbackPlain}}, {"message", []any{FallbackError}}} {
		at := def + "/allOf/" + strconv.Itoa(i)
		_, has := f[rule.member]
		switch {
		case hasKind && slices.Contains(rule.kinds, kind):
			c.required("/fallback", at+"/then", f, rule.member)
		case has:
			c.add("/fallback/"+rule.member, at+"/else/properties/"+rule.member+"/not", requestRule(at+"/else/properties/"+rule.member))
		}
	}
}

// requestCheck collects mismatches with the request schema.
type requestCheck struct{ found []Mismatch }

func (c *requestCheck) add(at, keyword, problem string) {
	c.found = append(c.found, Mismatch{InstancePath: at, SchemaPath: "request.json" + keyword, Problem: problem})
}

// required checks that obj has the members named; node is the schema
// node whose "required" keyword asks for them.
func (c *requestCheck) required(at, node string, obj map[string]any, names ...string) {
	var missing []string
	for _, n := range names {
		if _, ok := obj[n]; !ok {
			missing = append(missing, strconv.Quote(n))
		}
	}
	if len(missing) == 0 {
		return
	}
	problem := "missing " + strings.Join(missing, " and ")
	if why := requestRule(node); why != "" {
		problem += ": " + why
	}
	c.add(at, node+"/required", problem)
}

// typed checks that v is of one of the JSON types named, and reports
// whether it is; a schema's other keywords are not checked when its type
// fails, as the validator does. Types are named in the validator's order:
// null, boolean, number, integer, string, array, object.
func (c *requestCheck) typed(at, keyword string, v any, types ...string) bool {
	got := jsonType(v)
	for _, t := range types {
		if t == got || (t == "integer" && got == "number" && isInteger(v.(json.Number))) {
			return true
		}
	}
	c.add(at, keyword, fmt.Sprintf("want %s, got %s (%s)", strings.Join(types, " or "), got, show(v)))
	return false
}

// jsonType names a decoded JSON value's type as JSON Schema does; numbers
// are all "number".
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// isInteger reports whether n is an integer by value (1.0, 1e3), as JSON
// Schema's "integer" has it.
func isInteger(n json.Number) bool {
	d, ok := decimalOf(n)
	if !ok { // an exponent beyond an int: 1e99999999999 is an integer, 1e-99999999999 is not
		_, exp, _ := strings.Cut(strings.ToLower(string(n)), "e")
		return !strings.HasPrefix(exp, "-")
	}
	return d.integer()
}

// isNegative reports whether n is below zero.
func isNegative(n json.Number) bool {
	d, ok := decimalOf(n)
	return (ok && d.negative) || (!ok && strings.HasPrefix(string(n), "-"))
}

// requestRule is the description of the request schema's node at
// fragment ("#/$defs/fallback/allOf/0/then"): see SchemaDescription.
func requestRule(fragment string) string { return SchemaDescription("request.json" + fragment) }
