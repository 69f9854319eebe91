// Package probeclient is the reference's adapter for the client probe
// contract (PROBE.md §2): an ACP client, on the acp-go-sdk, that advertises
// form elicitation, opens a session, sends one prompt, and answers every
// elicitation/create as its scripted-user instruction says, refusing one it
// cannot follow with -32602; it exits when the turn ends. It is the passing
// subject of the client checks (CONTRACT CLI-1..5); its broken variants
// are the subjects that must fail them.
package probeclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/kit"
	"github.com/acpconform/acpconform/probe"
)

// Broken variants: each breaks one client rule on purpose.
const (
	Unregistered        = "unregistered"         // advertises form, registers no route: -32601 (CLI-1)
	WrongToken          = "wrong-token"          // accepts a const that was not offered (CLI-2)
	ContentOnDecline    = "content-on-decline"   // a decline that carries content (ELI-8; CLI-5 in test mode)
	MetaIntolerant      = "meta-intolerant"      // fails on option _meta or unknown _meta keys (CLI-3)
	AcceptsUnadvertised = "accepts-unadvertised" // advertises no form, yet answers a form (CLI-4)
	IgnoresUser         = "ignores-user"         // answers validly, always the first option, else cancel (CLI-5)
	// AcceptsUnadvertisedURL advertises form only, yet accepts a URL
	// elicitation (ELI-6).
	AcceptsUnadvertisedURL = "accepts-unadvertised-url"
)

// Brokens lists the broken variants.
var Brokens = []string{Unregistered, WrongToken, ContentOnDecline, MetaIntolerant, AcceptsUnadvertised, IgnoresUser, AcceptsUnadvertisedURL}

// client answers the agent's requests. It embeds nothing: every method of
// acp.Client is here, answering what a test client has no use for with an
// error.
type client struct {
	advertisesForm bool
	advertisesURL  bool
	broken         string
	replies        chan string // agent_message_chunk texts, for people
}

// elicitingClient adds the elicitation/create route; the SDK registers a
// route exactly when the client value has the method.
type elicitingClient struct{ *client }

// UnstableCreateElicitation answers as the request's scripted user says
// (kit.ScriptedAnswer), after refusing a mode the client did not advertise
// (kit.RefuseUnadvertised); the broken variants break one of those steps.
func (c elicitingClient) UnstableCreateElicitation(ctx context.Context, p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	// CLI-4, ELI-6: a mode that was not advertised is refused as invalid params.
	if err := kit.RefuseUnadvertised(c.capabilities(), p); err != nil &&
		!(c.broken == AcceptsUnadvertised && p.Form != nil) && !(c.broken == AcceptsUnadvertisedURL && p.Url != nil) {
		return acp.UnstableCreateElicitationResponse{}, err
	}
	if c.broken == MetaIntolerant && p.Form != nil && hasMeta(p.Form) {
		return acp.UnstableCreateElicitationResponse{}, acp.NewInternalError(map[string]any{"error": "unexpected _meta"})
	}
	if c.broken == IgnoresUser {
		if _, ok, err := kit.Instruction(metaOf(p)); !ok || err != nil {
			return cancel(), err
		}
		var ok bool
		if p, ok = firstOption(p); !ok {
			return cancel(), nil
		}
	}
	resp, ok, err := kit.ScriptedAnswer(ctx, p)
	if !ok {
		return cancel(), nil // no scripted user: as a person closing the dialog
	}
	if c.broken == WrongToken && resp.Accept != nil && p.Form != nil && kit.IsTypedChoice(p.Form.RequestedSchema) {
		resp.Accept.Content["choice"] = fmt.Sprint(resp.Accept.Content["choice"]) + "_x"
	}
	return resp, err
}

// metaOf is the _meta of a request.
func metaOf(p acp.UnstableCreateElicitationRequest) map[string]any {
	switch {
	case p.Form != nil:
		return p.Form.Meta
	case p.Url != nil:
		return p.Url.Meta
	}
	return nil
}

// firstOption is the request IgnoresUser answers: a typed choice with its
// instruction replaced by an accept of the first option. It is not ok
// for any other request, which IgnoresUser cancels.
func firstOption(p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationRequest, bool) {
	if p.Form == nil || !kit.IsTypedChoice(p.Form.RequestedSchema) {
		return p, false
	}
	form := *p.Form
	form.Meta = maps.Clone(form.Meta)
	if form.Meta == nil {
		form.Meta = map[string]any{}
	}
	form.Meta[probe.UserMetaKey] = map[string]any{"action": probe.ActionAccept, "pick": 0.0}
	return acp.UnstableCreateElicitationRequest{Form: &form}, true
}

// UnstableCompleteElicitation takes the agent's elicitation/complete: the
// test client opened nothing, so there is nothing to close, and an id it
// does not know, or knows complete, is ignored as the schema says (ELI-5).
func (c elicitingClient) UnstableCompleteElicitation(context.Context, acp.UnstableCompleteElicitationNotification) error {
	return nil
}

func cancel() acp.UnstableCreateElicitationResponse {
	return acp.UnstableCreateElicitationResponse{Cancel: &acp.UnstableCreateElicitationCancel{Action: "cancel"}}
}

// declineWithContent passes on what the SDK writes, one line a message,
// giving every decline content (ContentOnDecline): the SDK's typed answer
// has no way to say it, and writes any accept variant as "accept".
type declineWithContent struct {
	w    io.Writer
	line []byte // what came of a line not yet finished
}

func (d *declineWithContent) Write(p []byte) (int, error) {
	d.line = append(d.line, p...)
	for {
		i := bytes.IndexByte(d.line, '\n')
		if i < 0 {
			return len(p), nil
		}
		out := withDeclineContent(d.line[:i])
		d.line = append([]byte(nil), d.line[i+1:]...)
		if _, err := d.w.Write(append(out, '\n')); err != nil {
			return 0, err
		}
	}
}

// withDeclineContent adds content to a message whose result is a decline.
func withDeclineContent(line []byte) []byte {
	var msg map[string]json.RawMessage
	var result map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || json.Unmarshal(msg["result"], &result) != nil || string(result["action"]) != `"decline"` {
		return line
	}
	result["content"] = json.RawMessage(`{"choice":"choice_0"}`)
	msg["result"], _ = json.Marshal(result)
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return out
}

// hasMeta reports option _meta, or request _meta keys other than the
// scripted-user instruction.
func hasMeta(f *acp.UnstableCreateElicitationForm) bool {
	for k := range f.Meta {
		if k != probe.UserMetaKey {
			return true
		}
	}
	choice, _ := f.RequestedSchema.Properties["choice"].(map[string]any)
	oneOf, _ := choice["oneOf"].([]any)
	for _, o := range oneOf {
		if opt, _ := o.(map[string]any); opt["_meta"] != nil {
			return true
		}
	}
	return false
}

// SessionUpdate keeps what the agent says, for the log.
func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if chunk := n.Update.AgentMessageChunk; chunk != nil && chunk.Content.Text != nil {
		select {
		case c.replies <- chunk.Content.Text.Text:
		default:
		}
	}
	return nil
}

// RequestPermission is answered as a user who cancels.
func (c *client) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}, nil
}

var errNoFS = acp.NewMethodNotFound("the reference client offers no file system or terminal")

// ReadTextFile implements acp.Client; the client advertises no file system.
func (c *client) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errNoFS
}

// WriteTextFile implements acp.Client.
func (c *client) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errNoFS
}

// CreateTerminal implements acp.Client; the client advertises no terminal.
func (c *client) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errNoFS
}

// KillTerminal implements acp.Client.
func (c *client) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errNoFS
}

// TerminalOutput implements acp.Client.
func (c *client) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errNoFS
}

// ReleaseTerminal implements acp.Client.
func (c *client) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errNoFS
}

// WaitForTerminalExit implements acp.Client.
func (c *client) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errNoFS
}

// capabilities is what the client advertises.
func (c *client) capabilities() acp.ClientCapabilities {
	if !c.advertisesForm {
		return acp.ClientCapabilities{}
	}
	e := &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}
	if c.advertisesURL {
		e.Url = &acp.ElicitationUrlCapabilities{}
	}
	return acp.ClientCapabilities{Elicitation: e}
}
