package judge

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTypedChoiceProblems(t *testing.T) {
	good := `{"sessionId":"s","mode":"form","message":"Q","requestedSchema":{"type":"object","required":["choice"],
		"properties":{"choice":{"type":"string","title":"Choice","default":"choice_1","oneOf":[
			{"const":"choice_0","title":"A"},{"const":"choice_1","title":"B","_meta":{"acpkit.dev/choice-description":"Bee"}}]}}}}`
	if p := TypedChoiceProblems(json.RawMessage(good), "s"); len(p) != 0 {
		t.Fatalf("a good form has problems: %q", p)
	}
	// SCH-7: the description in the standard field too.
	standard := strings.Replace(good, `"title":"B",`, `"title":"B","description":"Bee",`, 1)
	if p := TypedChoiceProblems(json.RawMessage(standard), "s"); len(p) != 0 {
		t.Fatalf("a good form with SCH-7's standard description has problems: %q", p)
	}
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"wrong session", `"sessionId":"s"`, `"sessionId":"t"`, "SCH-1: sessionId"},
		{"a tool call", `"mode":"form"`, `"mode":"form","toolCallId":"x"`, "SCH-1: the request carries toolCallId"},
		{"url mode", `"mode":"form"`, `"mode":"url"`, "SCH-1: mode"},
		{"no mode", `"mode":"form",`, ``, `SCH-1: mode is absent, want "form"`},
		{"blank question", `"message":"Q"`, `"message":" "`, "SCH-1: message"},
		{"not required", `"required":["choice"]`, `"required":[]`, "SCH-2"},
		{"two properties", `"properties":{"choice"`, `"properties":{"x":{},"choice"`, "SCH-2"},
		{"wrong title", `"title":"Choice"`, `"title":"Pick"`, "SCH-3: choice title"},
		{"tokens from one", `{"const":"choice_0","title":"A"}`, `{"const":"choice_1","title":"A"}`, `SCH-4: option 0`},
		{"padded token", `{"const":"choice_0","title":"A"}`, `{"const":"choice_00","title":"A"}`, `SCH-4: option 0`},
		{"blank label", `"title":"A"`, `"title":""`, "SCH-3: option 0 has title"},
		{"an enum", `"type":"string",`, `"type":"string","enum":["choice_0"],`, `SCH-6: the choice property invents "enum"`},
		{"an option key", `"title":"A"}`, `"title":"A","value":"a"}`, `SCH-6: option 0 invents "value"`},
		{"an empty description", `"acpkit.dev/choice-description":"Bee"`, `"acpkit.dev/choice-description":""`, "SCH-5: option 1 has an empty description under _meta"},
		{"bare description key", `"acpkit.dev/choice-description":"Bee"`, `"description":"Bee"`, "SCH-5: option 1"},
		{"a description of no choice's", `"title":"A"}`, `"title":"A","description":"Ay"}`, `SCH-6: option 0 has the description "Ay"`},
		{"another description", `"title":"B",`, `"title":"B","description":"Bea",`, `SCH-6: option 1 has the description "Bea"`},
		{"default as a label", `"default":"choice_1"`, `"default":"B"`, "DEF-2"},
		// Names are exact, as ACP's SDKs read them.
		{"capitalised mode", `"mode":"form"`, `"Mode":"form"`, `SCH-1: mode is absent, want "form"`},
		{"capitalised schema type", `{"type":"object"`, `{"Type":"object"`, "SCH-2: requestedSchema is"},
		// A member named twice: each reading is judged, and says which.
		{"a second mode", `"mode":"form"`, `"mode":"form","mode":"url"`, `SCH-1: mode is "url", want "form" (reading the last of the duplicate "mode")`},
		{"a second const", `{"const":"choice_0",`, `{"const":"choice_9","const":"choice_0",`, `SCH-4: option 0 has const "choice_9", want "choice_0" (reading the first of the duplicate "const" in /requestedSchema/properties/choice/oneOf/0)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(good, tc.from, tc.to, 1)
			if bad == good {
				t.Fatalf("%q is not in the form", tc.from)
			}
			p := TypedChoiceProblems(json.RawMessage(bad), "s")
			if !strings.Contains(strings.Join(p, "\n"), tc.want) {
				t.Errorf("problems %q lack %q", p, tc.want)
			}
		})
	}
}
