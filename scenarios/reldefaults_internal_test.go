package scenarios

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestSameUpToDefaults: a field at its schema default written or left
// out, and a null _meta, leave a message unchanged (REL-1, revision 4);
// anything else is a change, an empty object without a default of its
// own above all.
func TestSameUpToDefaults(t *testing.T) {
	const caps = `{"fs":{"readTextFile":true,"writeTextFile":false},"terminal":true,"elicitation":{"form":{},"url":{}}}`
	init := func(c string) json.RawMessage {
		return json.RawMessage(`{"protocolVersion":1,"clientCapabilities":` + c + `}`)
	}
	for _, tc := range []struct {
		name           string
		method, member string
		a, b           json.RawMessage
		same           bool
	}{
		{"writeTextFile false left out", "initialize", "params", init(caps), init(`{"fs":{"readTextFile":true},"terminal":true,"elicitation":{"form":{},"url":{}}}`), true},
		{"every default written", "initialize", "params", init(caps), init(`{"fs":{"readTextFile":true,"writeTextFile":false},"terminal":true,"auth":{"terminal":false},"elicitation":{"form":{},"url":{}},"_meta":null}`), true},
		{"fs of defaults alone left out", "initialize", "params", init(`{"fs":{"readTextFile":false,"writeTextFile":false},"elicitation":{"form":{}}}`), init(`{"elicitation":{"form":{}}}`), true},
		{"all the capabilities defaults", "initialize", "params", init(`{"fs":{},"terminal":false}`), json.RawMessage(`{"protocolVersion":1}`), true},
		{"readTextFile true left out", "initialize", "params", init(caps), init(`{"fs":{"writeTextFile":false},"terminal":true,"elicitation":{"form":{},"url":{}}}`), false},
		{"terminal true made false", "initialize", "params", init(caps), init(`{"fs":{"readTextFile":true},"terminal":false,"elicitation":{"form":{},"url":{}}}`), false},
		{"elicitation.form {} left out", "initialize", "params", init(caps), init(`{"fs":{"readTextFile":true},"terminal":true,"elicitation":{"url":{}}}`), false},
		{"elicitation {} left out", "initialize", "params", init(`{"elicitation":{}}`), init(`{}`), false},
		{"the agent's defaults left out", "", "result", json.RawMessage(`{"protocolVersion":1,"agentCapabilities":{"loadSession":false,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":false},"mcpCapabilities":{"http":false,"sse":false},"sessionCapabilities":{},"auth":{}},"authMethods":[]}`),
			json.RawMessage(`{"protocolVersion":1}`), true},
		{"loadSession true left out", "", "result", json.RawMessage(`{"agentCapabilities":{"loadSession":true}}`), json.RawMessage(`{}`), false},
		{"a null content value left out", "", "result", json.RawMessage(`{"action":"accept","content":{"choice":null}}`), json.RawMessage(`{"action":"accept","content":{}}`), false},
		{"a null _meta deep in params", "session/update", "params", json.RawMessage(`{"sessionId":"s","update":{"content":{"type":"text","text":"x","_meta":null}}}`),
			json.RawMessage(`{"sessionId":"s","update":{"content":{"type":"text","text":"x"}}}`), true},
		{"a default's name elsewhere", "session/prompt", "params", json.RawMessage(`{"terminal":false}`), json.RawMessage(`{}`), false},
		{"requestedSchema's type left out", "elicitation/create", "params", json.RawMessage(`{"mode":"form","requestedSchema":{"type":"object","properties":{"a":{}}}}`),
			json.RawMessage(`{"mode":"form","requestedSchema":{"properties":{"a":{}}}}`), true},
		{"a null form is none", "initialize", "params", init(`{"elicitation":{"form":null,"url":{}}}`), init(`{"elicitation":{"url":{}}}`), true},
		{"a null url is not none", "initialize", "params", init(`{"elicitation":{"url":null}}`), init(`{"elicitation":{}}`), false},
		{"a property's null title and an option's null description", "elicitation/create", "params",
			json.RawMessage(`{"mode":"form","toolCallId":null,"requestedSchema":{"title":null,"properties":{"choice":{"type":"string","title":null,"oneOf":[{"const":"choice_0","title":"A","description":null}]}}}}`),
			json.RawMessage(`{"mode":"form","requestedSchema":{"properties":{"choice":{"type":"string","oneOf":[{"const":"choice_0","title":"A"}]}}}}`), true},
		{"an option's title made null", "elicitation/create", "params",
			json.RawMessage(`{"requestedSchema":{"properties":{"choice":{"oneOf":[{"const":"choice_0","title":null}]}}}}`),
			json.RawMessage(`{"requestedSchema":{"properties":{"choice":{"oneOf":[{"const":"choice_0"}]}}}}`), false},
		// Every reading of a member named twice: a default written beside
		// a value it hides is no default left out.
		{"a duplicate, the first reading changed", "initialize", "params", init(caps),
			init(`{"fs":{"readTextFile":true},"terminal":false,"elicitation":{"form":{},"url":{}},"terminal":true}`), false},
		{"a duplicate of one value", "initialize", "params", init(caps),
			init(`{"fs":{"readTextFile":true},"terminal":true,"elicitation":{"form":{},"url":{}},"terminal":true}`), true},
		{"a capitalised default", "initialize", "params", init(`{"elicitation":{"form":{}}}`), init(`{"elicitation":{"form":{}},"Terminal":false}`), false},
	} {
		for _, order := range [][2]json.RawMessage{{tc.a, tc.b}, {tc.b, tc.a}} {
			if got := sameUpToDefaults(tc.method, tc.member, order[0], order[1]); got != tc.same {
				t.Errorf("%s: sameUpToDefaults(%s, %s) = %v, want %v", tc.name, order[0], order[1], got, tc.same)
			}
		}
	}
}

// TestSlowRelayIsNotCalledBroken: a failure that rests on the time alone
// says it is slow, names the bound and the flag that raises it, and never
// calls the relay defective (a loaded machine made our own relay this slow).
func TestSlowRelayIsNotCalledBroken(t *testing.T) {
	got := slowRelay("agent", "session/update", 1<<20, 5*time.Second)
	for _, want := range []string{"slow: no answer within 5s (--response-timeout)", "the agent sent a session/update of 1048576 bytes", "larger --response-timeout"} {
		if !strings.Contains(got, want) {
			t.Errorf("slowRelay = %q, want it to say %q", got, want)
		}
	}
	if strings.Contains(got, "defect") || strings.HasPrefix(got, "relay") {
		t.Errorf("slowRelay = %q calls the relay broken", got)
	}
}
