package probeclient_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/kit/probeclient"
	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/suite"
)

// form is a typed choice of two options, the second the default.
func form(user *probe.User, meta string) script.Step {
	e := &script.Elicit{Question: "Choose", Choices: []script.Choice{{Label: "A"}, {Label: "B", Default: true}},
		User: (*script.User)(user), Expect: &script.AnswerExpect{User: user != nil}}
	if meta != "" {
		e.Meta = script.JSON(meta)
	}
	return script.Step{Elicit: e}
}

// play runs one prompt turn of the reference client, in-process, with the
// mock agent playing steps, and returns the agent once the turn has ended.
func play(t *testing.T, o probeclient.Options, steps ...script.Step) *agent.Agent {
	t.Helper()
	ctx := testbound.Context(t)
	link, err := suite.ReferenceClient(o).Connect(ctx)
	if err != nil {
		t.Fatal(testbound.Err(ctx, err))
	}
	a := agent.New(agent.Config{Timeout: 5 * time.Second})
	a.Append(steps...)
	a.Connect(link.Conn)
	t.Cleanup(func() {
		a.Close()
		link.Close()
	})
	if err := a.WaitTurns(ctx, 1); err != nil {
		t.Fatalf("the prompt turn: %v", testbound.Err(ctx, err))
	}
	return a
}

// answers are the raw answers the agent got.
func answers(a *agent.Agent) []string {
	var out []string
	for _, ex := range a.Exchanges() {
		out = append(out, string(ex.Answer.Raw))
	}
	return out
}

// The reference client answers as told, and refuses with -32602 what
// cannot be followed (docs/probe.md §2).
func TestAnswersAsTheScriptedUserSays(t *testing.T) {
	for _, tc := range []struct {
		name string
		step script.Step
	}{
		{"accept pick 0", form(&probe.User{Action: "accept", Pick: 0}, "")},
		{"accept pick default", form(&probe.User{Action: "accept", Pick: probe.PickDefault}, "")},
		{"decline", form(&probe.User{Action: "decline"}, "")},
		{"cancel", form(&probe.User{Action: "cancel"}, "")},
		{"accept pick 2 of two: -32602", form(&probe.User{Action: "accept", Pick: 2}, "")},
		{"accept pick -1: -32602", form(&probe.User{Action: "accept", Pick: -1}, "")},
		{"accept pick 0.5: -32602", form(&probe.User{Action: "accept", Pick: 0.5}, "")},
		{`accept pick "first": -32602`, form(&probe.User{Action: "accept", Pick: "first"}, "")},
		{"an unknown action: -32602", form(&probe.User{Action: "maybe"}, "")},
		{"pick default without a default: -32602", script.Step{Elicit: &script.Elicit{Question: "Choose", Choices: []script.Choice{{Label: "A"}},
			User: &script.User{Action: "accept", Pick: probe.PickDefault}, Expect: &script.AnswerExpect{User: true}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := play(t, probeclient.Options{}, tc.step)
			if v, u := a.Violations(), a.Unmet(); len(v)+len(u) > 0 {
				t.Errorf("violations %q, unmet %q", v, u)
			}
		})
	}
}

func TestRefusesAnInstructionThatIsNoObject(t *testing.T) {
	for _, meta := range []string{`{"acpconform/user":"accept"}`, `{"acpconform/user":null}`, `{"acpconform/user":{"action":1}}`} {
		a := play(t, probeclient.Options{}, form(nil, meta))
		ex := a.Exchanges()
		if len(ex) != 1 || ex[0].Answer.Error == nil || ex[0].Answer.Error.Code != -32602 {
			t.Errorf("_meta %s: the answers are %q, want JSON-RPC error -32602", meta, answers(a))
		}
	}
}

func TestCancelsWithoutAnInstruction(t *testing.T) {
	a := play(t, probeclient.Options{}, form(nil, ""))
	if ex := a.Exchanges(); len(ex) != 1 || string(ex[0].Answer.Result) != `{"action":"cancel"}` {
		t.Errorf("the answers are %q, want a cancel", answers(a))
	}
}

// ignores-user answers validly, never as told: it breaks CLI-5 alone.
func TestIgnoresUserAnswersValidlyButNotAsTold(t *testing.T) {
	a := play(t, probeclient.Options{Broken: probeclient.IgnoresUser},
		form(&probe.User{Action: "accept", Pick: 1}, ""), form(&probe.User{Action: "decline"}, ""))
	if v := a.Violations(); len(v) > 0 {
		t.Errorf("violations %q, want none: its answers are valid", v)
	}
	want := []string{
		`elicitation/create #1: the choice is "choice_0", want "choice_1"`,
		`elicitation/create #2: the action is "accept", want "decline"`,
	}
	if got := a.Unmet(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("unmet %q, want %q", got, want)
	}
}

// Main returns 0 when the prompt turn ends, without waiting for its stdin
// to close: a process exits when its turn ends (docs/probe.md §2).
func TestMainReturnsZeroWhenTheTurnEnds(t *testing.T) {
	ctx := testbound.Context(t)
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	a := agent.New(agent.Config{Timeout: 5 * time.Second})
	a.Append(form(&probe.User{Action: "accept", Pick: 1}, ""))
	a.Connect(wire.NewStream(agentIn, agentOut, wire.Options{}))
	defer a.Close()
	code := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		code <- probeclient.Main(ctx, probeclient.Options{Timeout: 20 * time.Second}, "", clientIn, clientOut, &stderr)
	}()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("Main returned %d, want 0; stderr:\n%s", c, stderr.String())
		}
	case <-ctx.Done():
		t.Fatalf("Main did not return when the prompt turn ended: %v", testbound.Err(ctx, nil))
	}
	if v, u := a.Violations(), a.Unmet(); len(v)+len(u) > 0 {
		t.Errorf("violations %q, unmet %q", v, u)
	}
	var answer struct{ Content json.RawMessage }
	if ex := a.Exchanges(); len(ex) != 1 || json.Unmarshal(ex[0].Answer.Result, &answer) != nil || string(answer.Content) != `{"choice":"choice_1"}` {
		t.Errorf("the answers are %q, want choice_1", answers(a))
	}
}

// content-on-decline answers a decline as a decline, with content: the
// SDK's typed answer cannot, so the variant adds it as it is written.
func TestContentOnDeclineSendsADeclineWithContent(t *testing.T) {
	a := play(t, probeclient.Options{Broken: probeclient.ContentOnDecline}, form(&probe.User{Action: "decline"}, ""))
	if ex := a.Exchanges(); len(ex) != 1 || string(ex[0].Answer.Result) != `{"action":"decline","content":{"choice":"choice_0"}}` {
		t.Errorf("the answers are %q, want a decline with content", answers(a))
	}
	if v := a.Violations(); len(v) != 1 || !strings.Contains(v[0], "ELI-8: a decline carries content") {
		t.Errorf("violations %q, want the CLI-2 of content on a decline", v)
	}
}
