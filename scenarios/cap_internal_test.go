package scenarios

import (
	"encoding/json"
	"testing"
)

// TestMalformedCaps holds malformedCaps to the ACP schema: only a member
// of another JSON type than object or null is malformed, so that a
// refusal of a well-formed initialize never passes a check.
func TestMalformedCaps(t *testing.T) {
	for caps, want := range map[string]bool{
		``:                                        false,
		`{}`:                                      false,
		`{"fs":{"readTextFile":true}}`:            false,
		`{"elicitation":null}`:                    false,
		`{"elicitation":{}}`:                      false,
		`{"elicitation":{"form":null}}`:           false,
		`{"elicitation":{"form":{}}}`:             false,
		`{"elicitation":{"url":{}}}`:              false,
		`{"elicitation":{"form":{"x":1}}}`:        false,
		`{"elicitation":{"form":false}}`:          true,
		`{"elicitation":{"form":true}}`:           true,
		`{"elicitation":{"form":"yes"}}`:          true,
		`{"elicitation":{"form":1}}`:              true,
		`{"elicitation":{"form":[]}}`:             true,
		`{"elicitation":"form"}`:                  true,
		`{"elicitation":{"form":{},"url":0}}`:     true,
		`{"elicitation":{"url":{},"form":false}}`: true,
	} {
		if got := malformedCaps(json.RawMessage(caps)); got != want {
			t.Errorf("malformedCaps(%s) = %v, want %v", caps, got, want)
		}
	}
}
