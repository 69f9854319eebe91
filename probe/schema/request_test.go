package schema_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/probe/schema"
)

// requests are probe requests that break the request schema in each way
// it can be broken, and some that do not.
var requests = []string{
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":{"a":[1]},"label":"A","description":"d","default":true}]}`,
	`{"acpconform":1,"op":"ask_choice","question":" ","choices":[],"fallback":null}`,
	`{"acpconform":1.0,"op":"ask_choice","question":"","choices":null,"fallbackDelayMs":2e3}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":null,"label":""}],"fallback":{"kind":"plain","value":null},"fallbackDelayMs":0}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"error","message":""},"future":{"x":1}}`,
	`{"acpconform":1}`,
	`{"acpconform":1,"op":7,"question":5,"choices":{}}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"label":"A"},"x",{"value":1,"label":2,"description":"","default":"yes"},{"value":1,"label":"A","description":null}]}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{}}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"value":1,"message":2}}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"accepted","message":"m"}}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"error"}}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"declined","value":1}}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"maybe","value":1}}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":"plain"}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallbackDelayMs":-1.5}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallbackDelayMs":-0}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallbackDelayMs":0.0}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallbackDelayMs":0e5}`,
	`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallbackDelayMs":"5"}`,
	`{"acpconform":1,"op":"create_elicitation","mode":"form","message":"M","requestedSchema":{"type":"object","properties":{}}}`,
	`{"acpconform":1,"op":"create_elicitation","mode":"url","message":"M","url":"https://example.com","elicitationId":"e1"}`,
	`{"acpconform":1,"op":"create_elicitation"}`,
	`{"acpconform":1,"op":"create_elicitation","mode":"form","message":"M"}`,
	`{"acpconform":1,"op":"create_elicitation","mode":"url","message":"M","url":"https://example.com"}`,
	`{"acpconform":1,"op":"create_elicitation","mode":"sms","message":5,"requestedSchema":[],"url":1,"elicitationId":{}}`,
	`{"acpconform":1,"op":"ask_choice"}`,
}

// TestRequestRulesMatchTheSchema holds probe.ParseRequest, which checks
// the request schema's rules in code, to the schema itself: the same
// verdict on every request, and for one that breaks it, the same
// mismatches, word for word.
func TestRequestRulesMatchTheSchema(t *testing.T) {
	for _, text := range requests {
		sameVerdict(t, text)
	}
}

// FuzzRequestRules is TestRequestRulesMatchTheSchema on any JSON.
//
//	go test -run '^$' -fuzz FuzzRequestRules -fuzztime 60s ./probe/schema
func FuzzRequestRules(f *testing.F) {
	for _, text := range requests {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !json.Valid([]byte(text)) || longExponent.MatchString(text) {
			return // the validator's exact arithmetic on 1e999999 would take minutes
		}
		sameVerdict(t, text)
	})
}

var longExponent = regexp.MustCompile(`[eE][+-]?[0-9]{4,}`)

func sameVerdict(t *testing.T, text string) {
	t.Helper()
	_, err := probe.ParseRequest(text)
	want := schema.Validate(probe.SchemaRequest, []byte(text))
	var got, wantSE *probe.SchemaError
	switch {
	case errors.As(err, &got) && errors.As(want, &wantSE):
		if !reflect.DeepEqual(got.Mismatches, wantSE.Mismatches) {
			t.Errorf("ParseRequest(%s):\n%v\nthe request schema:\n%v", text, err, want)
		}
	case err == nil && want != nil:
		t.Errorf("ParseRequest(%s) accepts what the request schema refuses: %v", text, want)
	case got != nil && want == nil:
		t.Errorf("ParseRequest(%s) refuses what the request schema accepts: %v", text, err)
	case err != nil && got == nil && want == nil && !regexp.MustCompile(`is out of range: acpconform reads integers`).MatchString(err.Error()):
		t.Errorf("ParseRequest(%s) refuses a request the schema accepts: %v", text, err)
	}
}

// TestParseOutcomeBoundsNumbers: a number of a million digits, which the
// validator's exact arithmetic took seconds over, is refused at once,
// saying where it is, in a message that quotes only its start.
func TestParseOutcomeBoundsNumbers(t *testing.T) {
	huge := strings.Repeat("9", 1_000_000)
	_, err := schema.ParseOutcome(`{"acpconform":1,"outcome":"accepted","index":0,"value":{"a":[1,` + huge + `]}}`)
	if err == nil || !strings.Contains(err.Error(), "a number of 1000000 characters at /value/a/1") || len(err.Error()) > 300 {
		t.Errorf("ParseOutcome of a million-digit number = %.400v", err)
	}
	if _, err := schema.ParseOutcome(`{"acpconform":1,"outcome":"accepted","index":0,"value":` + strings.Repeat("9", 1000) + `}`); err != nil {
		t.Errorf("ParseOutcome of a 1000-digit number: %.400v", err)
	}
}
