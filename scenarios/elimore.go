package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	"github.com/tidwall/gjson"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
)

// eliAgentMore: what contract revision 5 adds to the agent's
// create_elicitation. ELI-1 holds on every call of a connection, not only
// the first; ELI-2 never reports an unknown action as a known one, sends
// a URL exactly as given and reports a URL accept as consent alone; and a
// turn cancelled while its create_elicitation is pending ends cancelled at
// once, reporting nothing (ELI-9), telling the client (ELI-10).
func (e *env) eliAgentMore() {
	e.it("every-call-refused", "refuses every call of a connection, not only the first, of a mode the client did not advertise", rules("ELI-1"), expectsError, func(ctx SpecContext) {
		e.needOffered(ctx)
		for _, c := range unadvertisedModes() {
			f := e.connect(ctx, client.Config{Capabilities: json.RawMessage(c.caps)})
			for call := 1; call <= callsPerConnection; call++ {
				out := f.probe(ctx, c.req)
				if err := outcomeIs(out, unsupported); err != nil {
					Fail(fmt.Sprintf("on call %d of %d of create_elicitation on one connection (%s), %v", call, callsPerConnection, c.name, err))
				}
			}
			f.expectNoRequest(fmt.Sprintf("%s: a mode the client did not advertise is sent on no call of the connection, and no permission request goes in its place", c.name))
		}
	})

	// Not expects:error: the create_elicitation of ELI-2 hands a custom
	// action back as it came, and the error outcome is the probe adapter's,
	// which has no outcome for one (docs/probe.md §1.9); so the mutant that
	// turns every error of create_elicitation into a success cannot reach
	// it. The mutant unknown-action-as-accept is the success in its place.
	e.it("unknown-actions-unreported", "reports no action other than accept, decline and cancel as one of them", rules("ELI-2"), func(ctx SpecContext) {
		e.needOffered(ctx)
		f := e.connect(ctx, formAndURLClient)
		for _, c := range unknownActions() {
			f.answer(c.answer)
			out := f.probe(ctx, c.req)
			assert(out.Outcome == probe.OutcomeError,
				"the agent reported the client's action %q to its %s as %s: an action other than accept, decline and cancel is never reported as one of them (schema: \"MUST NOT treat it as a known elicitation action\"), so the probe's outcome is an error\n%s",
				c.action, c.req.Mode, describeOutcome(out), answered(c.answer))
		}
	})

	e.it("url-verbatim-consent", "sends a URL exactly as given, and reports its accept as consent, without the content it came with", rules("ELI-2"), func(ctx SpecContext) {
		e.needOffered(ctx)
		consent := script.AcceptContent(map[string]string{"code": "4/0AX4XfWh", "state": "github-oauth-002"})
		f := e.connect(ctx, formAndURLClient).answer(consent)
		req := signInURL()
		req.URL, req.ElicitationID = verbatimURL, "github-oauth-002"
		out := f.probe(ctx, req)
		sent := gjson.GetBytes(f.params(), "url")
		assert(sent.Type == gjson.String && sent.String() == req.URL,
			"the agent sent the url %s, want the application's exactly, %q: a URL is sent unchanged, never normalised (no host put in lower case, no port dropped, no path added)", show(json.RawMessage(sent.Raw)), req.URL)
		assert(out.Outcome == probe.OutcomeAccepted && out.Content == nil,
			"the agent reported %s for an accepted URL elicitation, want accepted without content: a URL accept is the user's consent to open it, and the content it came with means nothing\n%s",
			describeOutcome(out), answered(consent))
	})

	// However long the client keeps the request open: the mock client never
	// answers it, not even after $/cancel_request.
	e.it("cancel-ends-turn-promptly", "ends the turn cancelled within 2s of session/cancel while it is pending, reporting no answer", fresh, rules("ELI-9"), func(ctx SpecContext) {
		e.needOffered(ctx)
		f := e.connect(ctx, formAndURLClient).answer(script.Never())
		before := len(f.mc.Texts())
		turn := f.mc.Prompt(ctx, mustJSON(profileForm()))
		must("waiting for the elicitation/create", f.mc.WaitElicitations(e.wait(ctx), 1))
		f.cancelPromptly(ctx, turn, "its create_elicitation was pending and the client never answered it")
		for _, text := range f.mc.Texts()[before:] {
			assert(!probe.IsOutcome(text),
				"the agent reported %s in a turn cancelled before the client answered its create_elicitation: a cancelled turn reports no answer, none being given (ACP: agents MUST NOT assume an elicitation succeeded)", show(text))
		}
	})

	e.it("cancel-tells-client", "tells the client with $/cancel_request when its turn is cancelled while it is pending", fresh, rules("ELI-10"), func(ctx SpecContext) {
		e.needOffered(ctx)
		f := e.connect(ctx, formAndURLClient).answer(script.Never())
		f.mc.Prompt(ctx, mustJSON(profileForm()))
		must("waiting for the elicitation/create", f.mc.WaitElicitations(e.wait(ctx), 1))
		By("cancelling the prompt turn while the create_elicitation is pending")
		must("session/cancel", f.mc.Cancel(e.wait(ctx)))
		id := f.sent()[0].Request.ID
		ids, told := f.cancelRequestFor(ctx, id)
		assert(told, "the agent did not send $/cancel_request for its pending elicitation/create %s within %s of session/cancel; it cancelled %s. "+
			"This is advice (ACP's cascading cancellation; cancellation is optional): untold, the client keeps a form open that no one will read",
			id, e.response, showIDs(ids))
	})
}

// callsPerConnection is how many times the every-call check of ELI-1
// calls create_elicitation on one connection: the first call refused
// shows nothing of the second, and the second, of a third.
const callsPerConnection = 3

// unadvertisedMode is a create_elicitation of a mode the client's
// capabilities do not advertise.
type unadvertisedMode struct {
	name string
	caps string
	req  probe.Request
}

// unadvertisedModes are the cases of ELI-1's table, each on a connection
// of its own capabilities.
func unadvertisedModes() []unadvertisedMode {
	return []unadvertisedMode{
		{"a form to a client that advertised url only", `{"elicitation":{"url":{}}}`, profileForm()},
		{"a URL to a client that advertised form only", `{"elicitation":{"form":{}}}`, signInURL()},
		{"a URL to a client whose url is null", `{"elicitation":{"form":{},"url":null}}`, signInURL()},
		{"a form to a client without elicitation", `{}`, profileForm()},
	}
}

// unknownAction is a create_elicitation whose client answers with an
// action the schema does not name.
type unknownAction struct {
	action string
	req    probe.Request
	answer script.Answer
}

// unknownActions: a vendor's action on a URL, and on a form a made-up
// action and accept spelt with a capital, each with content the form
// allows, so that only the action is wrong.
func unknownActions() []unknownAction {
	var content map[string]any
	if err := json.Unmarshal([]byte(profileContent), &content); err != nil {
		panic(fmt.Sprintf("scenarios: profileContent: %v", err))
	}
	return []unknownAction{
		{"_vendor_defer", signInURL(), script.WithAction("_vendor_defer")},
		{"bogus", profileForm(), script.WithAction("bogus").WithContent(content)},
		{"Accept", profileForm(), script.WithAction("Accept").WithContent(content)},
	}
}

// verbatimURL is a URL that a URL library writes otherwise: pydantic's
// AnyUrl (the ACP Python SDK's) sends https://agent.example.com/?... for
// it, the host in lower case, the default port dropped and a path added.
const verbatimURL = "https://Agent.Example.com:443?elicitationId=github-oauth-002"

// cancelRequestFor waits, for the response timeout, until the agent has
// sent $/cancel_request for the request id; it returns the ids the
// agent cancelled meanwhile, and whether id is one of them.
func (f *fixture) cancelRequestFor(ctx context.Context, id json.RawMessage) ([]json.RawMessage, bool) {
	var ids []json.RawMessage
	err := f.mc.WaitReceived(f.e.wait(ctx), "$/cancel_request", func(received []peer.Message) bool {
		ids = nil
		for _, m := range received {
			if m.Method == "$/cancel_request" {
				ids = append(ids, json.RawMessage(gjson.GetBytes(m.Params, "requestId").Raw))
			}
		}
		return slices.ContainsFunc(ids, func(got json.RawMessage) bool { return probe.SameValue(got, id) })
	})
	return ids, err == nil
}

// endedBeforeTurn reports whether a client's connection ended before the
// agent's answer to its session/prompt reached it, as the mock agent's
// transcript entries show: the end of what the client sent is recorded
// before that answer (or no answer was sent), or the answer could not be
// written. An answer is recorded before it is written, so a client that
// reads it and then exits is never taken for one that ended before it.
func endedBeforeTurn(entries []wire.Entry) bool {
	var prompt string // the id of the client's session/prompt, as sent
	answered := false
	for _, en := range entries {
		switch {
		case en.Data == nil && en.Dir == wire.Received && strings.HasPrefix(en.Note, "closed: "):
			return prompt != "" && !answered
		case en.Data == nil && en.Dir == wire.Sent && answered && strings.HasPrefix(en.Note, "write "): // failed or abandoned
			return true
		case en.Data == nil:
		case en.Dir == wire.Received && gjson.GetBytes(en.Data, "method").String() == "session/prompt":
			prompt = gjson.GetBytes(en.Data, "id").Raw
		case en.Dir == wire.Sent && prompt != "" && gjson.GetBytes(en.Data, "id").Raw == prompt && gjson.GetBytes(en.Data, "result").Exists():
			answered = true
		}
	}
	return false
}

// isClosed reports whether ch is closed; a nil ch never is.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
