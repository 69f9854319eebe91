package probe_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/probe/schema"
)

func TestSameValue(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`"a"`, `"a"`, true},
		{`"a"`, `"b"`, false},
		{`1`, `1.0`, true},
		{`1`, `1e0`, true},
		{`100`, `1e2`, true},
		{`9007199254740992`, `9007199254740993`, false},
		{`1`, `"1"`, false},
		{`null`, `null`, true},
		{`null`, `false`, false},
		{`{"a":1,"b":[1,2]}`, ` { "b" : [1, 2.0], "a" : 1 } `, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`[]`, `{}`, false},
		{`1e999999999`, `1e999999999`, true},
		{`1e999999999`, `10e999999998`, true}, // by value, without arithmetic on a billion digits
		{`1` + strings.Repeat("0", 1e6), `1e1000000`, true},
		{`0.` + strings.Repeat("0", 1e6) + `1`, `1e-1000001`, true},
		{`-0`, `0.0e5`, true},
		{`1e99999999999999999999`, `1e99999999999999999999`, true}, // beyond an int: as text
		{`0.1`, `1e-1`, true},
		{`12.50e1`, `125`, true},
		{`125`, `-125`, false},
		{`{`, `{`, false},
		{`1 2`, `1`, false},
		{`{"a":1}`, `{"A":1}`, false}, // names are exact
		{`{"a":1,"a":1}`, `{"a":1}`, true},
		{`{"a":{"b":1,"b":1.0}}`, `{"a":{"b":1}}`, true},
		{`{"a":1,"a":2}`, `{"a":2}`, false}, // the first reading differs
		{`{"a":1,"a":2}`, `{"a":1}`, false}, // the last reading differs
		{`{"a":1,"a":2}`, `{"a":1,"a":2}`, false},
	} {
		if got := probe.SameValue(json.RawMessage(tc.a), json.RawMessage(tc.b)); got != tc.same {
			t.Errorf("SameValue(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

func TestParseRequest(t *testing.T) {
	r, err := probe.ParseRequest(`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":null,"label":"N","default":true}],"fallback":{"kind":"plain","value":null},"fallbackDelayMs":5}`)
	if err != nil {
		t.Fatal(err)
	}
	if r.Fallback == nil || r.Fallback.Kind != probe.FallbackPlain || string(r.Fallback.Value) != "null" || r.FallbackDelayMs != 5 || !r.Choices[0].Default || string(r.Choices[0].Value) != "null" {
		t.Errorf("ParseRequest lost fields: %+v", r)
	}
	for _, text := range []string{
		`{"acpconform":1,"op":"ask_choice","question":"","choices":null}`,
		`{"acpconform":1,"op":"ask_choice","question":"","choices":[]}`,
	} {
		r, err := probe.ParseRequest(text)
		if err != nil || r.Choices == nil || len(r.Choices) != 0 {
			t.Errorf("ParseRequest(%s) = choices %#v, %v; want none, as []", text, r.Choices, err)
		}
	}
	r, err = probe.ParseRequest(`{"acpconform":1.0,"op":"ask_choice","question":"","choices":[],"fallback":{"kind":"declined"},"fallbackDelayMs":2e3,"later":"ignored"}`)
	if err != nil || r.FallbackDelayMs != 2000 || r.Acpconform != 1 {
		t.Errorf("ParseRequest reads integers by value and ignores unknown members: %+v, %v", r, err)
	}
	for text, want := range map[string]string{
		`hello`:                              "not an acpconform probe request",
		`[1]`:                                "not an acpconform probe request: [1] is not a JSON object",
		`{"op":"ask_choice"}`:                `not an acpconform probe request: it has no "acpconform" member`,
		`{"acpconform":2,"op":"ask_choice"}`: "acpconform is 2, want 1",
		`{"acpconform":"1"}`:                 `acpconform is "1", want 1`,
		`{"acpconform":1,"op":"ask_many"}`:   `unknown probe op "ask_many"`,
		`{"acpconform":1,"op":"ask_choice","question":"Q"}`:                                          `probe request does not match the probe contract's request schema: at the top level: missing "choices"`,
		`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"maybe"}}`: `at /fallback/kind: want one of "accepted", "declined", "cancelled", "error", "plain", got "maybe"`,
	} {
		if _, err := probe.ParseRequest(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRequest(%s) = %v, want an error containing %q", text, err, want)
		}
	}
}

func TestParseOutcome(t *testing.T) {
	o, err := schema.ParseOutcome(`{"acpconform":1,"outcome":"error","error":"request_error","code":-32601,"message":"Method not found","data":{"method":"elicitation/create"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if o.Code == nil || *o.Code != -32601 || string(o.Data) != `{"method":"elicitation/create"}` {
		t.Errorf("ParseOutcome lost fields: %+v", o)
	}
	o, err = schema.ParseOutcome(`{"acpconform":1,"outcome":"accepted","index":0,"value":null,"warnings":[]}`)
	if err != nil || o.Index == nil || *o.Index != 0 || string(o.Value) != "null" {
		t.Errorf("ParseOutcome(accepted null) = %+v, %v", o, err)
	}
	o, err = schema.ParseOutcome(`{"acpconform":1,"outcome":"error","error":"request_error","code":-3.2603e4,"message":"","data":null}`)
	if err != nil || o.Code == nil || *o.Code != -32603 || string(o.Data) != "null" {
		t.Errorf("ParseOutcome(code -3.2603e4, data null) = %+v, %v; want code -32603 and data null", o, err)
	}
	o, err = schema.ParseOutcome(` {"acpconform":1,"outcome":"accepted","index":1.0,"value":2,"note":"for people"} `)
	if err != nil || *o.Index != 1 {
		t.Errorf("ParseOutcome(index 1.0) = %+v, %v; want index 1", o, err)
	}
	// What the schema reads is what is compared: an outcome whose
	// capitalised member repeats one of its own is read by the exact one
	// (encoding/json took the last, "accepted", after the schema read
	// "declined").
	o, err = schema.ParseOutcome(`{"acpconform":1,"outcome":"declined","Outcome":"accepted","Index":0}`)
	if err != nil || o.Outcome != probe.OutcomeDeclined || o.Index != nil {
		t.Errorf(`ParseOutcome(outcome "declined", "Outcome" "accepted") = %+v, %v; want declined, no index`, o, err)
	}
	o, err = schema.ParseOutcome(`{"acpconform":1,"outcome":"declined","outcome":"declined","warnings":[]}`)
	if err != nil || o.Outcome != probe.OutcomeDeclined {
		t.Errorf("ParseOutcome(a duplicate of one meaning) = %+v, %v; want declined", o, err)
	}
	for text, want := range map[string]string{
		`{"outcome":"accepted"}`:                                       `at the top level: missing "acpconform" (schema: outcome.json#/required)`,
		`{"acpconform":1,"outcome":"maybe"}`:                           `at /outcome: want one of "accepted", "declined", "cancelled", "error", got "maybe" (schema: outcome.json#/properties/outcome/enum)`,
		`{"acpconform":1,"outcome":"accepted"`:                         "outcome is not one JSON value",
		`{"acpconform":1,"outcome":"declined"} x`:                      "outcome is not one JSON value",
		`{"acpconform":1,"outcome":"accepted","index":1e30,"value":1}`: "at /index: want at most 9007199254740991, got 1e30 (schema: outcome.json#/properties/index/maximum)",
		// Member names are exact: "Outcome" is an unknown member.
		`{"acpconform":1,"Outcome":"accepted","Index":0,"Value":"preview"}`: `at the top level: missing "outcome"`,
		// A member named twice: each reading must match, and say the same.
		`{"acpconform":1,"outcome":"declined","outcome":"cancelled"}`:                            `outcome names "outcome" twice, and its two readings differ: {"acpconform":1,"outcome":"declined"} with the first of each, {"acpconform":1,"outcome":"cancelled"} with the last; an outcome has one meaning`,
		`{"acpconform":1,"outcome":"declined","outcome":"accepted","index":0,"value":"preview"}`: `outcome names "outcome" twice, and read with the first of each, outcome does not match the probe contract's outcome schema: at /index: only an accepted outcome has an index`,
		`{"acpconform":1,"outcome":"accepted","index":0,"value":"a","outcome":"maybe"}`:          `outcome names "outcome" twice, and read with the last of each, outcome does not match the probe contract's outcome schema: at /index: only an accepted outcome has an index`,
		`{"acpconform":1,"outcome":"accepted","index":0,"value":{"x":1,"x":2}}`:                  `outcome names "x" in /value twice, and its two readings differ`,
	} {
		if _, err := schema.ParseOutcome(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOutcome(%s) = %v, want an error containing %q", text, err, want)
		}
	}
}

func TestIsOutcome(t *testing.T) {
	for text, want := range map[string]bool{
		`{"acpconform":1,"outcome":"declined"}`:                           true,
		` {"acpconform":"1"} `:                                            true, // meant as one, and wrong: the harness says so
		`{"acpconform":2}`:                                                true,
		`{"acpconform":1,"op":"ask_choice"}`:                              false, // the probe request, echoed
		`{"outcome":"declined"}`:                                          false,
		`Thinking about it...`:                                            false,
		`{"acpconform":1,"outcome":"declined"} and`:                       false,
		`[{"acpconform":1}]`:                                              false,
		deep(100_000, `"acpconform":1,"outcome":"declined"`):              true, // meant as one, and too deep: the harness says so
		deep(100_000, `"acpconform":1,"op":"ask_choice"`):                 false,
		deep(100_000, `"acpconform":1,"outcome":"declined"`)[1:]:          false,
		deep(probe.MaxDepth, `"acpconform":1,"outcome":"declined"`) + "}": false,
	} {
		if got := probe.IsOutcome(text); got != want {
			t.Errorf("IsOutcome(%s) = %v, want %v", text, got, want)
		}
	}
}

// deep is a JSON object with members, and a member "x" nesting it depth
// levels in all.
func deep(depth int, members string) string {
	return "{" + members + `,"x":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}"
}

// TestInteger: a number is read by value, in time linear in its length;
// a fraction or an integer past ±2^53-1 is refused, saying which.
func TestInteger(t *testing.T) {
	for n, want := range map[string]int{
		"0": 0, "0.0": 0, "0e5": 0, "-0": 0, "-0.0e-3": 0, "0e99999999999999999999": 0, "0." + strings.Repeat("0", 1e6): 0,
		"1.0e0": 1, "10e-1": 1, "-1.00": -1, "-32601.0": -32601, "9007199254740991": probe.MaxInteger, "-9007199254740991.0": -probe.MaxInteger,
	} {
		if got, err := probe.Integer(json.Number(n)); err != nil || got != want {
			t.Errorf("Integer(%.40s) = %d, %v; want %d", n, got, err, want)
		}
	}
	for n, want := range map[string]error{
		"0.5": probe.ErrNotInteger, "-1.5e-1000000": probe.ErrNotInteger, "1e-99999999999999999999": probe.ErrNotInteger,
		"9007199254740992": probe.ErrIntegerRange, "-9007199254740992": probe.ErrIntegerRange, "1e30": probe.ErrIntegerRange,
		"1e99999999999999999999": probe.ErrIntegerRange, strings.Repeat("9", 1e6): probe.ErrIntegerRange,
	} {
		if _, err := probe.Integer(json.Number(n)); !errors.Is(err, want) || len(err.Error()) > 200 {
			t.Errorf("Integer(%.40s) = %v, want %v", n, err, want)
		}
	}
}

// TestMarshalledValuesValidate: what the Go types write, as the reference
// adapter and the harness write it, matches the schemas.
func TestMarshalledValuesValidate(t *testing.T) {
	one, minus, code := 1, -1, -32601
	for _, o := range []probe.Outcome{
		{Acpconform: 1, Outcome: probe.OutcomeAccepted, Index: &one, Value: json.RawMessage(`"production"`)},
		{Acpconform: 1, Outcome: probe.OutcomeAccepted, Index: &minus, Value: json.RawMessage(`null`), Warnings: []string{probe.WarningPlainValue}},
		{Acpconform: 1, Outcome: probe.OutcomeDeclined},
		{Acpconform: 1, Outcome: probe.OutcomeCancelled, Warnings: []string{}},
		{Acpconform: 1, Outcome: probe.OutcomeError, Error: probe.ErrorInvalidArgument, Message: "question must not be blank"},
		{Acpconform: 1, Outcome: probe.OutcomeError, Error: probe.ErrorInvalidFallback, Message: "not offered", Warnings: []string{probe.WarningPlainValue}},
		{Acpconform: 1, Outcome: probe.OutcomeError, Error: probe.ErrorRequest, Code: &code, Message: "", Data: json.RawMessage(`null`)},
		{Acpconform: 1, Outcome: probe.OutcomeError, Error: probe.ErrorRequest, Code: &code, Message: "Method not found", Data: json.RawMessage(`{"method":"elicitation/create"}`)},
		{Acpconform: 1, Outcome: probe.OutcomeError, Error: probe.ErrorFallback, Message: ""},
		{Acpconform: 1, Outcome: probe.OutcomeError, Error: probe.ErrorConnection, Message: "connection closed"},
		{Acpconform: 1, Outcome: probe.OutcomeError, Error: probe.ErrorInternal, Message: "boom"},
		{Acpconform: 1, Outcome: probe.OutcomeError, Error: probe.ErrorNotOffered, Message: "this adapter runs ask_choice only"},
	} {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(probe.SchemaOutcome, b); err != nil {
			t.Errorf("%s: %v", b, err)
		}
		back, err := schema.ParseOutcome(string(b))
		if again, _ := json.Marshal(back); err != nil || string(again) != string(b) {
			t.Errorf("ParseOutcome(%s) = %s, %v; want it back as it was", b, again, err)
		}
	}
	for _, r := range []probe.Request{
		{Acpconform: 1, Op: probe.OpAskChoice, Question: ""},
		{Acpconform: 1, Op: probe.OpAskChoice, Question: "Q", Choices: []probe.Choice{{Value: json.RawMessage(`1`), Label: "One", Description: "the first", Default: true}},
			Fallback: &probe.Fallback{Kind: probe.FallbackError}, FallbackDelayMs: 50},
		{Acpconform: 1, Op: probe.OpAskChoice, Question: "Q", Choices: []probe.Choice{{Value: json.RawMessage(`null`), Label: " "}},
			Fallback: &probe.Fallback{Kind: probe.FallbackPlain, Value: json.RawMessage(`null`)}},
	} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(probe.SchemaRequest, b); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
	if b, _ := json.Marshal(probe.Request{Acpconform: 1, Op: probe.OpAskChoice}); !strings.Contains(string(b), `"choices":[]`) {
		t.Errorf("a request without choices marshals as %s, want \"choices\":[]", b)
	}
	for _, u := range []probe.User{{Action: probe.ActionAccept, Pick: 0}, {Action: probe.ActionAccept, Pick: probe.PickDefault}, {Action: probe.ActionDecline}, {Action: probe.ActionCancel}} {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(probe.SchemaUser, b); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
}

// TestParseRequestReadsLongNumbersByValue: integers by value however they
// are written, in time linear in their length, and errors that quote
// only the start of a number.
func TestParseRequestReadsLongNumbersByValue(t *testing.T) {
	request := func(delay string) string {
		return `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallbackDelayMs":` + delay + `}`
	}
	r, err := probe.ParseRequest(request("1." + strings.Repeat("0", 1e6)))
	if err != nil || r.FallbackDelayMs != 1 {
		t.Errorf("fallbackDelayMs 1.000…0 = %d, %.300v; want 1", r.FallbackDelayMs, err)
	}
	r, err = probe.ParseRequest(request("0.00" + strings.Repeat("0", 1e6) + "1e1000004"))
	if err != nil || r.FallbackDelayMs != 10 {
		t.Errorf("fallbackDelayMs 0.0…1e1000004 = %d, %.300v; want 10", r.FallbackDelayMs, err)
	}
	for _, delay := range []string{strings.Repeat("9", 1e6), "1e999999999"} {
		_, err := probe.ParseRequest(request(delay))
		if err == nil || !strings.Contains(err.Error(), "is out of range: acpconform reads integers from -9007199254740991 to 9007199254740991") || len(err.Error()) > 300 {
			t.Errorf("fallbackDelayMs of %d characters: %.300v", len(delay), err)
		}
	}
}

// TestNotOffered: only an error outcome of kind not_offered says the
// adapter does not offer the op; no other outcome, whatever its message.
func TestNotOffered(t *testing.T) {
	for _, tc := range []struct {
		o    probe.Outcome
		want bool
	}{
		{probe.Outcome{Outcome: probe.OutcomeError, Error: probe.ErrorNotOffered}, true},
		{probe.Outcome{Outcome: probe.OutcomeError, Error: probe.ErrorNotOffered, Message: "ask_choice only"}, true},
		{probe.Outcome{Outcome: probe.OutcomeError, Error: probe.ErrorUnsupported, Message: "not offered"}, false},
		{probe.Outcome{Outcome: probe.OutcomeError, Error: probe.ErrorInternal, Message: "not_offered"}, false},
		{probe.Outcome{Outcome: probe.OutcomeDeclined, Error: probe.ErrorNotOffered}, false},
	} {
		if got := tc.o.NotOffered(); got != tc.want {
			t.Errorf("%+v.NotOffered() = %v, want %v", tc.o, got, tc.want)
		}
	}
}
