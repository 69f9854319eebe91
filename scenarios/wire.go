package scenarios

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
)

// wireOnly labels the checks that need no probe adapter: they make the
// agent ask with a prompt and look only at the frames.
var wireOnly = Label("wire-only")

// wire: what any agent sends, seen on the wire alone (SCH, DEF-2, CAP-2,
// CAP-3), for agents without a probe adapter.
func (e *env) wire() {
	Describe("WIRE: what the agent sends, seen on the wire alone", func() {
		e.it("wire-well-formed-form", "sends one well-formed typed-choice form, scoped to the session", wireOnly,
			rules("SCH-1", "SCH-2", "SCH-3", "SCH-4", "SCH-5", "SCH-6", "DEF-2"), func(ctx SpecContext) {
				f := e.connect(ctx, formClient).answer(script.Decline())
				_, err := f.mc.Prompt(ctx, e.prompt()).Wait(e.wait(ctx))
				must("session/prompt", err)
				sent := f.sent()
				assert(len(sent) == 1, "the agent sent %d elicitation/create requests for the prompt %q, want 1", len(sent), e.prompt())
				expectNone("the agent sent a form that is not a well-formed typed choice", typedChoiceProblems(sent[0].Request.Params, f.session))
			})

		DescribeTable("sends nothing to a client without form elicitation",
			func(ctx SpecContext, caps string) {
				cfg := client.Config{}
				if caps != "" {
					cfg.Capabilities = json.RawMessage(caps)
				}
				f := e.connectCaps(ctx, cfg)
				if f == nil {
					return // refused with -32602, as CAP-2 allows
				}
				_, err := f.mc.Prompt(ctx, e.prompt()).Wait(e.wait(ctx))
				must("session/prompt", err)
				f.expectNoRequest("a client without form support gets no elicitation, and no permission request in its place")
			},
			e.entry("no capabilities", slug("wire-no-capabilities"), wireOnly, rules("CAP-2", "CAP-3"), ""),
			e.entry("elicitation {}", slug("wire-elicitation-empty"), wireOnly, rules("CAP-2", "CAP-3"), `{"elicitation":{}}`),
			e.entry("url alone", slug("wire-url-alone"), wireOnly, rules("CAP-2", "CAP-3"), `{"elicitation":{"url":{}}}`),
			e.entry("form false", slug("wire-form-false"), wireOnly, rules("CAP-2", "CAP-3"), `{"elicitation":{"form":false}}`),
		)
	})
}

// prompt is what makes the agent ask: the configured text, or the seed's
// deploy question as a probe request.
func (e *env) prompt() string {
	if e.promptText != "" {
		return e.promptText
	}
	return mustJSON(deploy())
}

var tokenRE = regexp.MustCompile(`^choice_(0|[1-9][0-9]*)$`)

// typedChoiceProblems checks a typed-choice form without knowing the
// question asked: the shape of SCH-1..6 and DEF-2, on each reading of
// params that names a member twice (exactjson.OnEveryReading).
func typedChoiceProblems(params json.RawMessage, session string) []string {
	return exactjson.OnEveryReading(params, func(reading []byte) []string { return typedChoiceProblemsOf(reading, session) })
}

// typedChoiceProblemsOf is typedChoiceProblems of params that name no
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
