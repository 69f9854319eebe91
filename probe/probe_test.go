package probe_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/probe"
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
		{`1e999999999`, `10e999999998`, false}, // huge exponents compare as text, never by arithmetic
		{`{`, `{`, false},
		{`1 2`, `1`, false},
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
	if r.Fallback == nil || r.Fallback.Kind != probe.FallbackPlain || string(r.Fallback.Value) != "null" || r.FallbackDelayMs != 5 || !r.Choices[0].Default {
		t.Errorf("ParseRequest lost fields: %+v", r)
	}
	for text, want := range map[string]string{
		`hello`:                              "not an acpconform probe request",
		`{"acpconform":2,"op":"ask_choice"}`: "acpconform is 2, want 1",
		`{"acpconform":1,"op":"ask_many"}`:   `unknown probe op "ask_many"`,
	} {
		if _, err := probe.ParseRequest(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRequest(%s) = %v, want an error containing %q", text, err, want)
		}
	}
}

func TestParseOutcome(t *testing.T) {
	o, err := probe.ParseOutcome(`{"acpconform":1,"outcome":"error","error":"request_error","code":-32601,"message":"Method not found","data":{"method":"elicitation/create"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if o.Code == nil || *o.Code != -32601 || string(o.Data) != `{"method":"elicitation/create"}` {
		t.Errorf("ParseOutcome lost fields: %+v", o)
	}
	o, err = probe.ParseOutcome(`{"acpconform":1,"outcome":"accepted","index":0,"value":null,"warnings":[]}`)
	if err != nil || o.Index == nil || *o.Index != 0 || string(o.Value) != "null" {
		t.Errorf("ParseOutcome(accepted null) = %+v, %v", o, err)
	}
	for text, want := range map[string]string{
		`{"outcome":"accepted"}`:               "acpconform is 0",
		`{"acpconform":1,"outcome":"maybe"}`:   `unknown outcome "maybe"`,
		`{"acpconform":1,"outcome":"accepted"`: "not an acpconform outcome",
	} {
		if _, err := probe.ParseOutcome(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOutcome(%s) = %v, want an error containing %q", text, err, want)
		}
	}
}
