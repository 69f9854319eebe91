package script_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

func TestParseRejectsWithFileLineAndReason(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"unknown field", "name: x\npeer: client\nsteps:\n  - elicitation:\n      answr: {action: accept}\n",
			[]string{"bad.yaml:5: unknown field answr in Elicitation"}},
		{"bad duration", "name: x\npeer: client\nsteps:\n  - elicitation: {answer: {action: decline, delay: fast}}\n",
			[]string{`bad.yaml:4: "fast" is not a duration`}},
		{"bad pick", "name: x\npeer: client\nsteps:\n  - elicitation: {answer: {action: accept, pick: first}}\n",
			[]string{`bad.yaml:4: pick is an option's index or "default", not "first"`}},
		{"two things at once", "name: x\npeer: client\nsteps:\n  - initialize: {}\n  - prompt: hi\n    stop: end_turn\n",
			[]string{"bad.yaml:5: step 2 does prompt and stop at once"}},
		{"wrong peer", "name: x\npeer: agent\nsteps:\n  - newSession: {}\n",
			[]string{"bad.yaml:4: newSession is a client step, and this script plays the agent"}},
		{"empty step", "name: x\npeer: client\nsteps:\n  - {}\n", []string{"bad.yaml:4: step 1 does nothing"}},
		{"many problems at once", "name: Not Kebab\nrules: [TOK-2, tok2]\npeer: editor\nsteps: []\n", []string{
			`bad.yaml: name "Not Kebab" is not kebab-case`,
			`bad.yaml: rule "tok2" is not a CONTRACT ID`,
			`bad.yaml: peer is "editor", want client or agent`,
			"bad.yaml: no steps",
		}},
		{"answer of two kinds", "name: x\npeer: client\nsteps:\n  - elicitation: {answer: {action: accept, error: {code: 1, message: m}}}\n",
			[]string{"bad.yaml:4: an answer is one of"}},
		{"no action", "name: x\npeer: client\nsteps:\n  - elicitation: {answer: {pick: 1}}\n",
			[]string{"bad.yaml:4: the answer has no action", "pick, label and choice go with action accept"}},
		{"pick and label", "name: x\npeer: client\nsteps:\n  - elicitation: {answer: {action: accept, pick: 1, label: A}}\n",
			[]string{"bad.yaml:4: pick, label, choice and content exclude each other"}},
		{"never with delay", "name: x\npeer: client\nsteps:\n  - elicitation: {answer: {never: true, delay: 1s}}\n",
			[]string{"bad.yaml:4: never and close take no delay"}},
		{"invalid elicit", "name: x\npeer: agent\nsteps:\n  - elicit: {question: ' ', choices: [{label: A}]}\n",
			[]string{"bad.yaml:4: elicit: question must not be blank (send such a form with params)"}},
		{"elicit of both kinds", "name: x\npeer: agent\nsteps:\n  - elicit: {question: Q, params: {}}\n",
			[]string{"bad.yaml:4: elicit takes params or a question, not both"}},
		{"elicit of a form and choices", "name: x\npeer: agent\nsteps:\n  - elicit: {question: Q, form: {type: object}, choices: [{label: A}]}\n",
			[]string{"bad.yaml:4: elicit takes one of: params; question and choices; question and form; question, url and elicitationId"}},
		{"elicit of a url without its id", "name: x\npeer: agent\nsteps:\n  - elicit: {question: Q, url: 'https://example.com/x'}\n",
			[]string{"bad.yaml:4: elicit: a URL elicitation has both url and elicitationId"}},
		{"agent with capabilities", "name: x\npeer: agent\ncapabilities: {}\nsteps:\n  - say: hi\n",
			[]string{"bad.yaml: capabilities and unregistered are for the client peer"}},
		{"unknown probe field", "name: x\npeer: client\nsteps:\n  - probe: {question: Q, choices: [], fallbak: {kind: declined}}\n",
			[]string{`bad.yaml:4: unknown field "fallbak"`}},
		{"malformed YAML", "name: x\npeer: [client\n", []string{"bad.yaml:"}},
		{"malformed JSON", `{"name": "x", "peer": "client",}`, []string{"bad.yaml:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := script.Parse("bad.yaml", []byte(tc.text))
			if err == nil {
				t.Fatalf("Parse accepted:\n%s", tc.text)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte("{\n\t\"name\": \"j\",\n\t\"peer\": \"client\",\n\t\"steps\": [{\"bogus\": 1}]\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := script.Load(path)
	if err == nil || !strings.Contains(err.Error(), path+":4: unknown field bogus in Step") {
		t.Fatalf("Load = %v", err)
	}
	if _, err := script.Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
}

func TestParseKeepsWhatIsWritten(t *testing.T) {
	s, err := script.Parse("ok.yaml", []byte(`
name: ok
peer: client
capabilities: null
timeout: 750ms
steps:
  - initialize: {capabilities: {elicitation: {form: null}}}
  - probe: {question: Q, choices: [{value: null, label: N}], fallback: {kind: plain, value: null}}
  - elicitation: {answer: {action: accept, choice: null}}
  - elicitation: {answer: {error: {code: -32601, message: Method not found, data: null}}}
  - outcome: {outcome: accepted, index: 0, value: null, warnings: []}
`))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if g, w := toJSON(got), toJSON(want); g != w {
			t.Errorf("%s = %s, want %s", what, g, w)
		}
	}
	check("capabilities", s.Capabilities, json.RawMessage("null"))
	check("wait", s.Wait(), 750*time.Millisecond)
	check("initialize capabilities", s.Steps[0].Initialize.Capabilities, json.RawMessage(`{"elicitation":{"form":null}}`))
	check("probe", probe.Request(*s.Steps[1].Probe), json.RawMessage(`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":null,"label":"N"}],"fallback":{"kind":"plain","value":null}}`))
	check("choice", s.Steps[2].Elicitation.Answer.Choice, json.RawMessage("null"))
	check("error data", s.Steps[3].Elicitation.Answer.Error.Data, json.RawMessage("null"))
	if s.Steps[4].Outcome.Warnings == nil || s.Steps[4].Line != 11 {
		t.Errorf("outcome step: %+v", s.Steps[4])
	}
}

const form = `{"sessionId":"s","mode":"form","message":"Q","requestedSchema":{"type":"object","required":["choice"],
	"properties":{"choice":{"type":"string","title":"Choice","default":"choice_1",
	"oneOf":[{"const":"choice_0","title":"A"},{"const":"choice_1","title":"B"},{"const":7,"title":"Seven"}]}}}}`

func TestAnswerResolve(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer script.Answer
		result string
		rpcErr string
		err    string
	}{
		{"pick", script.Accept(0), `{"action":"accept","content":{"choice":"choice_0"}}`, "", ""},
		{"pick a non-string const", script.Accept(2), `{"action":"accept","content":{"choice":7}}`, "", ""},
		{"default", script.AcceptDefault(), `{"action":"accept","content":{"choice":"choice_1"}}`, "", ""},
		{"label", script.AcceptLabel("B"), `{"action":"accept","content":{"choice":"choice_1"}}`, "", ""},
		{"choice", script.AcceptChoice([]int{1}), `{"action":"accept","content":{"choice":[1]}}`, "", ""},
		{"content", script.AcceptContent(json.RawMessage(`"x"`)), `{"action":"accept","content":"x"}`, "", ""},
		{"no content", script.AcceptWithoutContent(), `{"action":"accept"}`, "", ""},
		{"decline with content", script.Decline().WithContent(map[string]int{"a": 1}), `{"action":"decline","content":{"a":1}}`, "", ""},
		{"cancel", script.Cancel(), `{"action":"cancel"}`, "", ""},
		{"unknown action", script.WithAction("bogus"), `{"action":"bogus"}`, "", ""},
		{"an action to escape", script.WithAction("say \"<hi>\"\n"), `{"action":"say \"<hi>\"\n"}`, "", ""},
		{"result", script.Result(nil), `null`, "", ""},
		{"error", script.Fail(-32601, "Method not found", map[string]string{"method": "elicitation/create"}), "", `{"Code":-32601,"Message":"Method not found","Data":{"method":"elicitation/create"}}`, ""},
		{"pick out of range", script.Accept(3), "", "", "cannot pick option 3: the request offers 3"},
		{"pick far out of range", script.Accept(12), "", "", "cannot pick option 12: the request offers 3"},
		{"unknown label", script.AcceptLabel("C"), "", "", `cannot pick label "C"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result, rpcErr, err := tc.answer.Resolve(json.RawMessage(form))
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want %q", err, tc.err)
				}
			case tc.rpcErr != "":
				if toJSON(rpcErr) != toJSON(json.RawMessage(tc.rpcErr)) {
					t.Errorf("rpc error = %s, want %s", toJSON(rpcErr), tc.rpcErr)
				}
			default:
				if err != nil || rpcErr != nil || toJSON(result) != toJSON(json.RawMessage(tc.result)) {
					t.Errorf("Resolve = %s, %v, %v; want %s", result, rpcErr, err, tc.result)
				}
			}
		})
	}
	if _, _, err := script.AcceptDefault().Resolve(json.RawMessage(`{"requestedSchema":{"properties":{"choice":{"oneOf":[]}}}}`)); err == nil {
		t.Error("AcceptDefault resolved without a default")
	}
	if _, _, err := script.Accept(0).Resolve(nil); err == nil || !strings.Contains(err.Error(), "offers 0") {
		t.Errorf("Accept(0) without params: err = %v, want no option offered", err)
	}
}

func TestExpectCheck(t *testing.T) {
	s := func(v string) *string { return &v }
	good := &script.Expect{Message: s("Q"), Mode: "form", SessionID: s("s"), Tokens: []string{"choice_0", "choice_1", "7"}, Labels: []string{"A", "B", "Seven"}, Default: s("choice_1")}
	if p := good.Check(json.RawMessage(form)); len(p) != 0 {
		t.Errorf("a matching request fails: %q", p)
	}
	bad := &script.Expect{Message: s("q"), Mode: "url", SessionID: s("t"), Tokens: []string{"choice_0"}, Labels: []string{"A"}, Default: s(""), Params: script.JSON(`{}`)}
	if p := bad.Check(json.RawMessage(form)); len(p) != 7 {
		t.Errorf("want 7 mismatches, got %d: %q", len(p), p)
	}
	if p := (&script.Expect{Default: s("choice_0")}).Check(json.RawMessage(`{"requestedSchema":{}}`)); len(p) != 1 || !strings.Contains(p[0], "default is absent") {
		t.Errorf("missing default: %q", p)
	}
	var none *script.Expect
	if p := none.Check(json.RawMessage(`garbage`)); p != nil {
		t.Errorf("a nil expectation checks nothing, got %q", p)
	}
}

// TestExpectCheckReadsExactly: a request is read as ACP's SDKs read it:
// "Mode" and "Message" are not mode and message; and a request that names
// a member twice is compared on each reading, saying which.
func TestExpectCheckReadsExactly(t *testing.T) {
	s := func(v string) *string { return &v }
	want := &script.Expect{Message: s("Q"), Mode: "form", Tokens: []string{"choice_0"}}
	for params, mismatches := range map[string][]string{
		`{"Mode":"form","Message":"Q","requestedSchema":{"properties":{"choice":{"oneOf":[{"const":"choice_0"}]}}}}`: {
			`message is absent, want "Q"`, `mode is "", want "form"`,
		},
		`{"mode":"form","message":"Q","requestedSchema":{"properties":{"choice":{"OneOf":[{"const":"choice_0"}]}}}}`: {
			`tokens are [], want ["choice_0"]`,
		},
		`{"mode":"url","message":"Q","mode":"form","requestedSchema":{"properties":{"choice":{"oneOf":[{"const":"choice_0"}]}}}}`: {
			`mode is "url", want "form" (reading the first of the duplicate "mode")`,
		},
	} {
		if got := want.Check(json.RawMessage(params)); !slices.Equal(got, mismatches) {
			t.Errorf("Check(%s) = %q, want %q", params, got, mismatches)
		}
	}
}

func TestOutcomeCheck(t *testing.T) {
	i, c := 1, -32601
	got := probe.Outcome{Acpconform: 1, Outcome: "error", Error: "request_error", Code: &c, Message: "Method not found", Data: json.RawMessage(`{"method":"elicitation/create"}`)}
	if p := (&script.Outcome{Outcome: "error", Code: &c, Data: json.RawMessage(`{ "method" : "elicitation/create" }`)}).Check(got); len(p) != 0 {
		t.Errorf("matching outcome fails: %q", p)
	}
	p := (&script.Outcome{Outcome: "accepted", Index: &i, Value: json.RawMessage(`"x"`), Error: "unsupported", Message: "m", Warnings: []string{"plain-value-fallback"}}).Check(got)
	if len(p) != 6 {
		t.Errorf("want 6 mismatches, got %q", p)
	}
	if p := (&script.Outcome{Warnings: []string{}}).Check(probe.Outcome{}); len(p) != 0 {
		t.Errorf("no warnings expected and none given: %q", p)
	}
	// An empty value shows as "", not as nothing at all.
	p = (&script.Outcome{Outcome: "error", Error: "invalid_response"}).Check(probe.Outcome{Outcome: "accepted"})
	if want := []string{`outcome is "accepted", want "error"`, `error is "", want "invalid_response"`}; !slices.Equal(p, want) {
		t.Errorf("mismatches %q, want %q", p, want)
	}
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "!" + err.Error()
	}
	var x any
	if json.Unmarshal(b, &x) != nil {
		return string(b)
	}
	b, _ = json.Marshal(x)
	return string(b)
}
