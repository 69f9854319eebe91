package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/acpconform/acpconform/internal/exactjson"
)

var tokenRE = regexp.MustCompile(`^choice_(0|[1-9][0-9]*)$`)

// TypedChoiceProblems checks a typed-choice form without knowing the
// question asked: the shape of SCH-1..6 and DEF-2, each problem led by its
// rule ("SCH-4: option 0 has const ..."), on each reading of params that
// names a member twice (exactjson.OnEveryReading). session is the session
// the form must be scoped to. The catalogue's wire-only checks and the
// judge of a trace both read a form with it.
func TypedChoiceProblems(params json.RawMessage, session string) []string {
	return exactjson.OnEveryReading(params, func(reading []byte) []string { return typedChoiceProblemsOf(reading, session) })
}

// typedChoiceProblemsOf is TypedChoiceProblems of params that name no
// member twice: read by exact names, as ACP's SDKs read them.
func typedChoiceProblemsOf(params json.RawMessage, session string) []string {
	var p []string
	var req map[string]json.RawMessage
	if err := json.Unmarshal(params, &req); err != nil {
		return []string{fmt.Sprintf("params are not an object: %s", show(params))}
	}
	str := func(raw json.RawMessage) (string, bool) {
		var s string
		return s, json.Unmarshal(raw, &s) == nil && raw != nil && string(raw) != "null"
	}
	if m, _ := str(req["mode"]); m != "form" {
		p = append(p, fmt.Sprintf("SCH-1: mode is %s, want \"form\"", show(req["mode"])))
	}
	if m, ok := str(req["message"]); !ok || strings.TrimSpace(m) == "" {
		p = append(p, fmt.Sprintf("SCH-1: message is %s, want the question", show(req["message"])))
	}
	if s, _ := str(req["sessionId"]); s != session {
		p = append(p, fmt.Sprintf("SCH-1: sessionId is %s, want %q", show(req["sessionId"]), session))
	}
	for _, k := range []string{"toolCallId", "requestId"} {
		if _, ok := req[k]; ok {
			p = append(p, "SCH-1: the request carries "+k)
		}
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := exactjson.Unmarshal(req["requestedSchema"], &schema); err != nil || req["requestedSchema"] == nil {
		return append(p, fmt.Sprintf("SCH-2: requestedSchema is %s", show(req["requestedSchema"])))
	}
	if schema.Type != "object" || len(schema.Properties) != 1 || schema.Properties["choice"] == nil || !slices.Equal(schema.Required, []string{"choice"}) {
		p = append(p, fmt.Sprintf("SCH-2: requestedSchema is %s, want an object with the one required property choice", show(req["requestedSchema"])))
	}
	var choice map[string]json.RawMessage
	if err := json.Unmarshal(schema.Properties["choice"], &choice); err != nil {
		return append(p, "SCH-3: the choice property is not an object")
	}
	for k := range choice {
		if !slices.Contains([]string{"type", "title", "oneOf", "default"}, k) {
			p = append(p, fmt.Sprintf("SCH-6: the choice property invents %q", k))
		}
	}
	if t, _ := str(choice["type"]); t != "string" {
		p = append(p, fmt.Sprintf("SCH-3: choice type is %s, want \"string\"", show(choice["type"])))
	}
	if t, _ := str(choice["title"]); t != "Choice" {
		p = append(p, fmt.Sprintf("SCH-3: choice title is %s, want \"Choice\"", show(choice["title"])))
	}
	var oneOf []map[string]json.RawMessage
	if err := json.Unmarshal(choice["oneOf"], &oneOf); err != nil || len(oneOf) == 0 {
		return append(p, fmt.Sprintf("SCH-3: oneOf is %s, want one entry per choice", show(choice["oneOf"])))
	}
	var tokens []string
	for i, o := range oneOf {
		c, _ := str(o["const"])
		tokens = append(tokens, c)
		if c != fmt.Sprintf("choice_%d", i) || !tokenRE.MatchString(c) {
			p = append(p, fmt.Sprintf("SCH-4: option %d has const %s, want \"choice_%d\"", i, show(o["const"]), i))
		}
		if t, ok := str(o["title"]); !ok || strings.TrimSpace(t) == "" {
			p = append(p, fmt.Sprintf("SCH-3: option %d has title %s, want its label", i, show(o["title"])))
		}
		for k := range o {
			if k != "const" && k != "title" && k != "_meta" && k != "description" {
				p = append(p, fmt.Sprintf("SCH-6: option %d invents %q", i, k))
			}
		}
		var described string // the description under ACP Kit's key
		if meta, ok := o["_meta"]; ok {
			var m map[string]json.RawMessage
			if json.Unmarshal(meta, &m) != nil || len(m) != 1 || m["acpkit.dev/choice-description"] == nil {
				p = append(p, fmt.Sprintf("SCH-5: option %d has _meta %s, want only acpkit.dev/choice-description", i, show(meta)))
			} else if d, ok := str(m["acpkit.dev/choice-description"]); !ok {
				p = append(p, fmt.Sprintf("SCH-5: option %d's description is not a string", i))
			} else if d == "" {
				// "" is no description, and a choice without one carries no metadata.
				p = append(p, fmt.Sprintf("SCH-5: option %d has an empty description under _meta, want no _meta for a choice without a description", i))
			} else {
				described = d
			}
		}
		// SCH-7's standard field repeats the description; with none under
		// the _meta key, it has no description to repeat.
		if raw, ok := o["description"]; ok {
			if d, _ := str(raw); described == "" || d != described {
				p = append(p, fmt.Sprintf("SCH-6: option %d has the description %s, which is not its choice's description in _meta (%q)", i, show(raw), described))
			}
		}
	}
	if raw, ok := choice["default"]; ok {
		if d, _ := str(raw); !slices.Contains(tokens, d) {
			p = append(p, fmt.Sprintf("DEF-2: default is %s, want one of the tokens", show(raw)))
		}
	}
	return p
}

// show is a JSON value for a problem: compact, "absent" when missing.
func show(raw json.RawMessage) string {
	if raw == nil {
		return "absent"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return fmt.Sprintf("%q (not JSON)", raw)
	}
	return b.String()
}
