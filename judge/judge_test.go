package judge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/acpconform/acpconform/judge"
	"github.com/acpconform/acpconform/trace"
)

// session builds a session from lines "SECONDS c|a FRAME": the client's
// or the agent's frame at that time, or "SECONDS c-end|a-end WHY": that
// side's end; the record ends at the last.
func session(lines ...string) judge.Session {
	s := judge.Session{Name: "t.jsonl"}
	for i, l := range lines {
		at, rest, _ := strings.Cut(l, " ")
		who, frame, _ := strings.Cut(rest, " ")
		d, err := time.ParseDuration(at + "s")
		if err != nil {
			panic(err)
		}
		from := trace.Client
		if strings.HasPrefix(who, "a") {
			from = trace.Agent
		}
		if strings.HasSuffix(who, "-end") { // "c-end WHY": the side ended
			s.Frames = append(s.Frames, judge.Frame{From: from, At: d, Line: i + 2, Ended: true, Why: frame})
			s.End = d
			continue
		}
		s.Frames = append(s.Frames, judge.Frame{From: from, At: d, Data: []byte(frame), Line: i + 2})
		s.End = d
	}
	return s
}

const (
	initForm   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"elicitation":{"form":{}}}}}`
	initNone   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
	newSession = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`
	sessionS   = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`
	sessionT   = `{"jsonrpc":"2.0","id":4,"result":{"sessionId":"t"}}`
	promptS    = `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`
	choiceForm = `{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"sessionId":"s","mode":"form","message":"Q","requestedSchema":{"type":"object","required":["choice"],"properties":{"choice":{"type":"string","title":"Choice","oneOf":[{"const":"choice_0","title":"A"},{"const":"choice_1","title":"B"}]}}}}}`
	cancelS    = `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`
	cancel7    = `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`
	ended      = `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`
	endedTurn  = `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`
	complete   = `{"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"e-1"}}`
)

// verdict is the state of check id when role's checks judge s.
func verdict(t *testing.T, role, id string, s judge.Session) judge.Result {
	t.Helper()
	for _, r := range judge.Judge(judge.Options{Role: role}, s) {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("the judge has no check %s of the %s", id, role)
	return judge.Result{}
}

func TestAgentRules(t *testing.T) {
	opening := []string{"0.0 c " + initForm, "0.0 a " + `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`, "0.0 c " + newSession, "0.0 a " + sessionS, "0.1 c " + promptS}
	for _, tc := range []struct {
		name, check string
		lines       []string
		want        judge.State
		why         string
	}{
		{"a good typed choice", "SCH-4/trace-tokens-in-order", []string{"0.2 a " + choiceForm}, judge.Passed, ""},
		{"tokens from one", "SCH-4/trace-tokens-in-order", []string{"0.2 a " + strings.Replace(choiceForm, `"choice_0"`, `"choice_9"`, 1)}, judge.Failed, `option 0 has const "choice_9"`},
		{"a title renamed", "SCH-3/trace-string-choice-with-labels", []string{"0.2 a " + strings.Replace(choiceForm, `"Choice"`, `"Pick"`, 1)}, judge.Failed, `choice title is "Pick"`},
		{"a blank question", "VAL-1/trace-question-not-blank", []string{"0.2 a " + strings.Replace(choiceForm, `"message":"Q"`, `"message":" "`, 1)}, judge.Failed, "VAL-1: message is"},
		{"no choices", "VAL-2/trace-some-choice", []string{"0.2 a " + strings.Replace(choiceForm, `[{"const":"choice_0","title":"A"},{"const":"choice_1","title":"B"}]`, `[]`, 1)}, judge.Failed, "VAL-2: oneOf is []"},
		{"a session never opened", "SCH-1/trace-form-scoped-to-session", []string{"0.2 a " + strings.Replace(choiceForm, `"sessionId":"s"`, `"sessionId":"x"`, 1)}, judge.Failed, `the session "x", which is none of this connection's`},
		{"no form sent", "SCH-2/trace-one-required-property", nil, judge.NotExercised, "no typed-choice form"},
		{"cancel told", "RTE-7/trace-cancel-tells-client", []string{"0.2 a " + choiceForm, "0.3 c " + cancelS, "0.4 a " + cancel7, "0.5 a " + ended, "3.0 c " + newSession}, judge.Passed, ""},
		{"cancel not told", "RTE-7/trace-cancel-tells-client", []string{"0.2 a " + choiceForm, "0.3 c " + cancelS, "0.5 a " + ended, "3.0 c " + newSession}, judge.Failed, "sent no $/cancel_request for its elicitation/create 7"},
		{"cancel told late", "RTE-7/trace-cancel-tells-client", []string{"0.2 a " + choiceForm, "0.3 c " + cancelS, "2.5 a " + cancel7}, judge.Failed, "it had not come 2.2s later"},
		{"the record ends before the bound", "RTE-7/trace-cancel-tells-client", []string{"0.2 a " + choiceForm, "0.3 c " + cancelS, "0.5 a " + ended}, judge.NotExercised, "record going on 2 s"},
		{"choice's turn ended", "RTE-7/trace-cancelled-choice-ends-turn", []string{"0.2 a " + choiceForm, "0.3 c " + cancelS, "0.5 a " + ended}, judge.Passed, ""},
		{"choice's turn not ended", "RTE-7/trace-cancelled-choice-ends-turn", []string{"0.2 a " + choiceForm, "0.3 c " + cancelS, "2.5 a " + ended}, judge.Failed, "did not end the turn (session/prompt 2) whose typed choice was cancelled within 2s"},
		{"input end, agent ends", "RTE-7/trace-input-end-ends-agent", []string{"0.2 a " + choiceForm, "0.3 c-end closed its output", "0.5 a-end exited with status 0"}, judge.Passed, ""},
		{"input end, agent stays", "RTE-7/trace-input-end-ends-agent", []string{"0.2 a " + choiceForm, "0.3 c-end closed its output", "2.5 a-end exited with status -1 (killed)"}, judge.Failed, `did not end after its client ended ("closed its output") with the typed choice 7 pending`},
		{"turn ended cancelled", "ELI-9/trace-cancelled-turn-ends", []string{"0.2 a " + choiceForm, "0.3 c " + cancelS, "0.5 a " + ended}, judge.Passed, ""},
		{"turn ended otherwise", "ELI-9/trace-cancelled-turn-ends", []string{"0.2 a " + choiceForm, "0.3 c " + cancelS, "0.5 a " + endedTurn}, judge.Failed, `with stopReason "end_turn", want stopReason "cancelled"`},
		{"the other session's choice left for the client", "SES-2/trace-cancel-leaves-other-sessions", []string{
			"0.1 c " + strings.Replace(newSession, `"id":1`, `"id":4`, 1), "0.1 a " + sessionT,
			"0.1 c " + strings.NewReplacer(`"id":2`, `"id":5`, `"s"`, `"t"`).Replace(promptS),
			"0.2 a " + strings.NewReplacer(`"id":7`, `"id":8`, `"sessionId":"s"`, `"sessionId":"t"`).Replace(choiceForm),
			"0.2 a " + choiceForm, "0.3 c " + cancelS, "0.4 a " + cancel7,
			"0.4 c " + `{"jsonrpc":"2.0","id":8,"result":{"action":"decline"}}`}, judge.Passed, ""},
		{"the other session's choice cancelled", "SES-2/trace-cancel-leaves-other-sessions", []string{
			"0.1 c " + strings.Replace(newSession, `"id":1`, `"id":4`, 1), "0.1 a " + sessionT,
			"0.1 c " + strings.NewReplacer(`"id":2`, `"id":5`, `"s"`, `"t"`).Replace(promptS),
			"0.2 a " + strings.NewReplacer(`"id":7`, `"id":8`, `"sessionId":"s"`, `"sessionId":"t"`).Replace(choiceForm),
			"0.2 a " + choiceForm, "0.3 c " + cancelS, "0.4 a " + cancel7,
			"0.4 a " + strings.Replace(cancel7, "7", "8", 1)}, judge.Failed, `the agent cancelled the elicitation/create 8 of the session "t" too`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := verdict(t, "agent", tc.check, session(append(append([]string(nil), opening...), tc.lines...)...))
			if r.State != tc.want || !strings.Contains(strings.Join(r.Why, "\n"), tc.why) {
				t.Errorf("%s is %s (%q), want %s with %q", tc.check, r.State, r.Why, tc.want, tc.why)
			}
		})
	}
	// An initialize with a malformed form, refused as the SDKs that
	// validate refuse it, or otherwise.
	malformed := strings.Replace(initForm, `"form":{}`, `"form":false`, 1)
	for answer, want := range map[string]judge.State{
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`:                            judge.Passed,
		`{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Invalid params"}}`:        judge.Passed,
		`{"jsonrpc":"2.0","id":0,"error":{"code":-32603,"message":"Internal error: panic"}}`: judge.Failed,
	} {
		if r := verdict(t, "agent", "CAP-2/trace-malformed-capability-answered", session("0.0 c "+malformed, "0.0 a "+answer)); r.State != want {
			t.Errorf("initialize with form false answered %s: %s %q, want %s", answer, r.State, r.Why, want)
		}
	}
	// A form to a client without form elicitation.
	unadvertised := session("0.0 c "+initNone, "0.0 c "+newSession, "0.0 a "+sessionS, "0.1 c "+promptS, "0.2 a "+choiceForm)
	if r := verdict(t, "agent", "CAP-2/trace-form-only-when-advertised", unadvertised); r.State != judge.Failed || !strings.Contains(r.Why[0], "t.jsonl:6:") {
		t.Errorf("a form sent unadvertised: %s %q, want failed at t.jsonl:6", r.State, r.Why)
	}
}

func TestClientRules(t *testing.T) {
	opening := func(init string) []string {
		return []string{"0.0 c " + init, "0.0 c " + newSession, "0.0 a " + sessionS, "0.1 c " + promptS, "0.2 a " + choiceForm}
	}
	answer := func(result string) string { return `{"jsonrpc":"2.0","id":7,"result":` + result + `}` }
	for _, tc := range []struct {
		name, init, check string
		lines             []string
		want              judge.State
		why               string
	}{
		{"an offered token", initForm, "CLI-2/trace-offered-choice-once", []string{"0.3 c " + answer(`{"action":"accept","content":{"choice":"choice_1"}}`)}, judge.Passed, ""},
		{"a label", initForm, "CLI-2/trace-offered-choice-once", []string{"0.3 c " + answer(`{"action":"accept","content":{"choice":"B"}}`)}, judge.Failed, `the accepted choice "B" is none of the offered consts`},
		{"twice", initForm, "CLI-2/trace-offered-choice-once", []string{"0.3 c " + answer(`{"action":"decline"}`), "0.3 c " + answer(`{"action":"decline"}`)}, judge.Failed, "a second time"},
		{"a capitalised member", initForm, "CLI-2/trace-offered-choice-once", []string{"0.3 c " + answer(`{"Action":"decline"}`)}, judge.Failed, `member names are exact: it has "Action"`},
		{"method not found", initForm, "CLI-1/trace-advertised-form-handled", []string{"0.3 c " + `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`}, judge.Failed, "its elicitation/create route is not registered"},
		{"unadvertised refused", initNone, "CLI-4/trace-unadvertised-form-refused", []string{"0.3 c " + `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params"}}`}, judge.Passed, ""},
		{"unadvertised answered", initNone, "CLI-4/trace-unadvertised-form-refused", []string{"0.3 c " + answer(`{"action":"accept","content":{"choice":"choice_0"}}`)}, judge.Failed, "where the schema says -32602"},
		{"content on decline", initForm, "ELI-8/trace-content-conforms", []string{"0.3 c " + answer(`{"action":"decline","content":{"choice":"choice_0"}}`)}, judge.Failed, "ELI-8: a decline carries content"},
		{"complete taken", initForm, "ELI-5/trace-complete-taken", []string{"0.3 a " + complete, "0.4 a " + endedTurn, "0.5 c-end closed its output"}, judge.Passed, ""},
		{"complete crashes", initForm, "ELI-5/trace-complete-taken", []string{"0.3 a " + complete, "0.4 c-end exited with status 2"}, judge.Failed, `the client's side ended ("exited with status 2") after the agent elicitation/complete (line 7), before its turn (session/prompt 2) ended`},
		{"a cancel answered", initForm, "ELI-7/trace-cancel-answered", []string{"0.3 a " + cancel7, "0.4 c " + answer(`{"action":"cancel"}`)}, judge.Passed, ""},
		{"a cancel ignored", initForm, "ELI-7/trace-cancel-answered", []string{"0.3 a " + cancel7, "5.5 c " + newSession}, judge.Failed, "answered no elicitation/create it was told to cancel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := verdict(t, "client", tc.check, session(append(opening(tc.init), tc.lines...)...))
			if r.State != tc.want || !strings.Contains(strings.Join(r.Why, "\n"), tc.why) {
				t.Errorf("%s is %s (%q), want %s with %q", tc.check, r.State, r.Why, tc.want, tc.why)
			}
		})
	}
}

// Garbage is data: a session of lines that are no JSON-RPC, or answers to
// nothing, exercises nothing and crashes nothing.
func TestGarbageExercisesNothing(t *testing.T) {
	s := session("0.0 c not json", `0.0 a {"jsonrpc":"2.0","id":99,"result":{}}`, `0.1 a [1,2]`, "0.2 c "+strings.Repeat("[", 5000), `0.3 a {"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":{}}}`)
	for _, role := range []string{"agent", "client"} {
		for _, r := range judge.Judge(judge.Options{Role: role}, s) {
			if r.State != judge.NotExercised {
				t.Errorf("%s: %s on garbage, want not exercised", r.ID, r.State)
			}
		}
	}
}
