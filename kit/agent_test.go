package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/kit"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/probe/schema"
)

// client plays the client of a kit agent in this process, frame by frame.
type client struct {
	t    *testing.T
	ctx  context.Context
	conn wire.Conn
}

// frame is one JSON-RPC message.
type frame struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	} `json:"error,omitempty"`
}

// started starts a on a pipe, initializes it with caps (JSON) and opens a
// session, whose id it returns.
func started(t *testing.T, a kit.Agent, caps string) (*client, string) {
	t.Helper()
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	a.Start(agentOut, agentIn)
	c := &client{t: t, ctx: testbound.Context(t), conn: wire.NewStream(fromAgent, toAgent, wire.Options{})}
	t.Cleanup(func() {
		toAgent.Close()
		agentOut.Close()
	})
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":` + caps + `}}`)
	c.next()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	var session struct{ SessionID string }
	if err := json.Unmarshal(c.next().Result, &session); err != nil || session.SessionID == "" {
		t.Fatalf("session/new: %v", err)
	}
	return c, session.SessionID
}

func (c *client) send(msg string) {
	c.t.Helper()
	if err := c.conn.WriteFrame(c.ctx, []byte(msg)); err != nil {
		c.t.Fatal(testbound.Err(c.ctx, err))
	}
}

func (c *client) next() frame {
	c.t.Helper()
	b, err := c.conn.ReadFrame(c.ctx)
	if err != nil {
		c.t.Fatal(testbound.Err(c.ctx, err))
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		c.t.Fatalf("%s: %v", b, err)
	}
	return f
}

// prompt sends the probe request as the prompt's text, with id 2.
func (c *client) prompt(session, request string) {
	c.t.Helper()
	text, _ := json.Marshal(request)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"` + session + `","prompt":[{"type":"text","text":` + string(text) + `}]}}`)
}

// untilTurnEnds reads the frames up to the prompt's answer, and returns
// them and the answer.
func (c *client) untilTurnEnds() (frames []frame, answer frame) {
	c.t.Helper()
	for {
		f := c.next()
		if string(f.ID) == "2" && f.Method == "" {
			return frames, f
		}
		frames = append(frames, f)
	}
}

// outcome reads the outcome a session/update carries.
func outcome(t *testing.T, f frame) probe.Outcome {
	t.Helper()
	var p struct {
		Update struct {
			SessionUpdate string
			Content       struct{ Text string }
		}
	}
	if err := json.Unmarshal(f.Params, &p); err != nil || f.Method != "session/update" || p.Update.SessionUpdate != "agent_message_chunk" {
		t.Fatalf("want an agent_message_chunk, got %s %s (%v)", f.Method, f.Params, err)
	}
	out, err := schema.ParseOutcome(p.Update.Content.Text)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tokenAsker is a small ask_choice of the test's own: it asks with a form
// of tokens and returns the choice the answer names.
func tokenAsker(c *kit.Call) (any, error) {
	oneOf := []map[string]string{}
	for i, ch := range c.Choices {
		oneOf = append(oneOf, map[string]string{"const": "choice_" + strconv.Itoa(i), "title": ch.Label})
	}
	raw, err := c.Session.SendElicitation(c.Context(), map[string]any{"mode": "form", "message": c.Question, "requestedSchema": map[string]any{
		"type": "object", "required": []string{"choice"}, "properties": map[string]any{"choice": map[string]any{"type": "string", "title": "Choice", "oneOf": oneOf}}}})
	if err != nil {
		return nil, err
	}
	var answer struct{ Content struct{ Choice string } }
	_ = json.Unmarshal(raw, &answer)
	i, err := strconv.Atoi(strings.TrimPrefix(answer.Content.Choice, "choice_"))
	if err != nil {
		return nil, err
	}
	return kit.Accepted(c.Choices[i].Value), nil
}

var form = `{"elicitation":{"form":{}}}`

const deploy = `{"acpconform":1,"op":"ask_choice","question":"Choose","choices":[
	{"value":"preview","label":"Preview"},
	{"value":{"n":9007199254740993,"x":1.0},"label":"Big"},
	{"value":null,"label":"Nothing"}]`

func TestTheSessionAsksOnThePromptsSessionAndTheOutcomeFollows(t *testing.T) {
	c, session := started(t, kit.Agent{AskChoice: tokenAsker}, form)
	c.prompt(session, deploy+`}`)
	ask := c.next()
	var params struct {
		SessionID string `json:"sessionId"`
		Message   string `json:"message"`
	}
	if err := json.Unmarshal(ask.Params, &params); err != nil || ask.Method != "elicitation/create" || params.SessionID != session || params.Message != "Choose" {
		t.Fatalf("want elicitation/create scoped to %s, got %s %s", session, ask.Method, ask.Params)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"choice":"choice_1"}}}`)
	frames, answer := c.untilTurnEnds()
	if len(frames) != 1 || string(answer.Result) != `{"stopReason":"end_turn"}` {
		t.Fatalf("want one outcome, then end_turn; got %d frames, then %s", len(frames), answer.Result)
	}
	out := outcome(t, frames[0])
	if out.Outcome != "accepted" || out.Index == nil || *out.Index != 1 || string(out.Value) != `{"n":9007199254740993,"x":1.0}` {
		t.Errorf("outcome %+v, value %s: want choice 1, its value as the request wrote it", out, out.Value)
	}
}

func TestCancelEndsTheTurnWithoutAnOutcome(t *testing.T) {
	t.Run("a pending elicitation, told with $/cancel_request", func(t *testing.T) {
		c, session := started(t, kit.Agent{AskChoice: tokenAsker}, form)
		c.prompt(session, deploy+`}`)
		ask := c.next()
		c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + session + `"}}`)
		frames, answer := c.untilTurnEnds()
		if len(frames) == 0 { // the turn may end before the client is told
			frames = append(frames, c.next())
		}
		if string(answer.Result) != `{"stopReason":"cancelled"}` || len(frames) != 1 || frames[0].Method != "$/cancel_request" ||
			string(frames[0].Params) != `{"requestId":`+string(ask.ID)+`}` {
			t.Errorf("want $/cancel_request for %s, and the turn cancelled; got %+v, and %s", ask.ID, frames, answer.Result)
		}
	})
	t.Run("a fallback that waits an hour", func(t *testing.T) {
		waiting, ran := make(chan struct{}), make(chan error, 1)
		waiter := func(c *kit.Call) (any, error) {
			close(waiting)
			_, err := c.Fallback(c.Context())
			ran <- err
			return nil, err
		}
		c, session := started(t, kit.Agent{AskChoice: waiter}, `{}`)
		c.prompt(session, deploy+`,"fallback":{"kind":"declined"},"fallbackDelayMs":3600000}`)
		select { // a cancel before the turn has begun cancels nothing
		case <-waiting:
		case <-c.ctx.Done():
			t.Fatal(testbound.Err(c.ctx, errors.New("the fallback never ran")))
		}
		c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + session + `"}}`)
		frames, answer := c.untilTurnEnds()
		if string(answer.Result) != `{"stopReason":"cancelled"}` || len(frames) != 0 {
			t.Errorf("want cancelled and nothing before; got %+v, then %s", frames, answer.Result)
		}
		if err := <-ran; !errors.Is(err, context.Canceled) {
			t.Errorf("the fallback ended with %v, want the context's end", err)
		}
	})
}

func TestFallbacksAreBuiltAsTheRequestSays(t *testing.T) {
	for _, tc := range []struct {
		fallback string
		want     string
	}{
		{`{"kind":"declined"}`, `{"acpconform":1,"outcome":"declined"}`},
		{`{"kind":"cancelled"}`, `{"acpconform":1,"outcome":"cancelled"}`},
		{`{"kind":"accepted","value":{"x":1,"n":9007199254740993}}`, `{"acpconform":1,"outcome":"accepted","index":1,"value":{"n":9007199254740993,"x":1.0}}`},
		{`{"kind":"accepted","value":{"n":9007199254740992,"x":1}}`, `{"acpconform":1,"outcome":"error","error":"invalid_fallback","message":"not offered"}`},
		{`{"kind":"error","message":"the policy says no"}`, `{"acpconform":1,"outcome":"error","error":"fallback_error","message":"the policy says no"}`},
		{`{"kind":"plain","value":null}`, `{"acpconform":1,"outcome":"accepted","index":2,"value":null,"warnings":["plain-value-fallback"]}`},
	} {
		t.Run(tc.fallback, func(t *testing.T) {
			c, session := started(t, kit.Agent{AskChoice: matcher, Errors: kit.Errors{InvalidFallback: errNotOffered}}, `{}`)
			c.prompt(session, deploy+`,"fallback":`+tc.fallback+`,"fallbackDelayMs":1}`)
			frames, answer := c.untilTurnEnds()
			if len(frames) != 1 || string(answer.Result) != `{"stopReason":"end_turn"}` {
				t.Fatalf("want one outcome, then end_turn; got %d frames, then %s", len(frames), answer.Result)
			}
			want, err := schema.ParseOutcome(tc.want)
			if err != nil {
				t.Fatal(err)
			}
			if got := outcome(t, frames[0]); !sameOutcome(got, want) {
				t.Errorf("outcome %+v, want %+v", got, want)
			}
		})
	}
}

var errNotOffered = errors.New("not offered")

// matcher is the fallback half of an ask_choice: it runs the fallback and
// matches an accepted value to the offered ones with Equal.
func matcher(c *kit.Call) (any, error) {
	var res kit.Result
	var err error
	if c.PlainFallback != nil {
		c.Warn("the fallback returned a plain value")
		res.Status = kit.StatusAccepted
		res.Value, err = c.PlainFallback(c.Context())
	} else {
		res, err = c.Fallback(c.Context())
	}
	if err != nil || res.Status != kit.StatusAccepted {
		return res, err
	}
	for _, ch := range c.Choices {
		if c.Equal(ch.Value, res.Value) {
			return kit.Accepted(ch.Value), nil
		}
	}
	return nil, errNotOffered
}

// sameOutcome compares outcomes as the harness does: values as JSON.
func sameOutcome(a, b probe.Outcome) bool {
	sameJSON := func(x, y json.RawMessage) bool { return (x == nil && y == nil) || probe.SameValue(x, y) }
	sameInt := func(x, y *int) bool { return (x == nil && y == nil) || (x != nil && y != nil && *x == *y) }
	return a.Outcome == b.Outcome && a.Error == b.Error && a.Message == b.Message && sameInt(a.Index, b.Index) &&
		sameJSON(a.Value, b.Value) && strings.Join(a.Warnings, ",") == strings.Join(b.Warnings, ",")
}

func TestWhatIsNoProbeRequestIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		agent kit.Agent
		text  string
		want  string
	}{
		{"not JSON", kit.Agent{AskChoice: tokenAsker}, "hello", "not an acpconform probe request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, session := started(t, tc.agent, form)
			c.prompt(session, tc.text)
			_, answer := c.untilTurnEnds()
			if answer.Error == nil || answer.Error.Code != -32602 || !strings.Contains(string(answer.Error.Data), tc.want) {
				t.Errorf("want -32602 saying %q, got %+v", tc.want, answer.Error)
			}
		})
	}
}

// TestWithoutCreateElicitationTheOpIsNotOffered: an adapter without
// CreateElicitation answers every create_elicitation request, whatever
// its mode, with the outcome not_offered, having sent nothing, and ends
// the turn (docs/probe.md §1.9).
func TestWithoutCreateElicitationTheOpIsNotOffered(t *testing.T) {
	for _, request := range []string{
		`{"acpconform":1,"op":"create_elicitation","mode":"url","message":"m","url":"https://x","elicitationId":"e"}`,
		`{"acpconform":1,"op":"create_elicitation","mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}`,
	} {
		c, session := started(t, kit.Agent{AskChoice: tokenAsker}, `{"elicitation":{"form":{},"url":{}}}`)
		c.prompt(session, request)
		frames, answer := c.untilTurnEnds()
		if len(frames) != 1 || string(answer.Result) != `{"stopReason":"end_turn"}` {
			t.Fatalf("%s: want one outcome and end_turn, got %d frames and %s %+v", request, len(frames), answer.Result, answer.Error)
		}
		if out := outcome(t, frames[0]); !out.NotOffered() || out.Message == "" {
			t.Errorf("%s: outcome %+v, want the error not_offered with a message", request, out)
		}
	}
}

func TestAPanicIsAnInternalError(t *testing.T) {
	c, session := started(t, kit.Agent{AskChoice: func(*kit.Call) (any, error) { panic("oops") }}, form)
	c.prompt(session, deploy+`}`)
	frames, _ := c.untilTurnEnds()
	if len(frames) != 1 {
		t.Fatalf("want one outcome, got %d frames", len(frames))
	}
	if out := outcome(t, frames[0]); out.Error != "internal" || !strings.Contains(out.Message, "oops") {
		t.Errorf("outcome %+v, want internal, saying oops", out)
	}
}

func TestTheAgentEndsWithItsInput(t *testing.T) {
	ctx := testbound.Context(t)
	agentIn, toAgent := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- kit.ServeAgent(ctx, agentIn, io.Discard, kit.Agent{AskChoice: tokenAsker}) }()
	toAgent.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeAgent: %v, want nil at the end of its input", err)
		}
	case <-ctx.Done():
		t.Fatal(testbound.Err(ctx, errors.New("ServeAgent did not return at the end of its input")))
	}
}
