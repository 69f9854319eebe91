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

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/probe"
)

// Broken variants: each breaks one client rule on purpose.
const (
	Unregistered        = "unregistered"         // advertises form, registers no route: -32601 (CLI-1)
	WrongToken          = "wrong-token"          // accepts a const that was not offered (CLI-2)
	ContentOnDecline    = "content-on-decline"   // a decline that carries content (CLI-2)
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

// UnstableCreateElicitation answers as the request's scripted user says.
func (c elicitingClient) UnstableCreateElicitation(ctx context.Context, p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	if p.Url != nil {
		return c.answerURL(ctx, p.Url)
	}
	if p.Form == nil {
		return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": "no form and no url"})
	}
	if !c.advertisesForm && c.broken != AcceptsUnadvertised {
		// CLI-4: a mode that was not advertised is refused as invalid params.
		return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": "form elicitation was not advertised"})
	}
	if c.broken == MetaIntolerant && hasMeta(p.Form) {
		return acp.UnstableCreateElicitationResponse{}, acp.NewInternalError(map[string]any{"error": "unexpected _meta"})
	}
	user, ok, err := instruction(p.Form.Meta)
	switch {
	case err != nil:
		return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	case !ok:
		return cancel(), nil // no scripted user: as a person closing the dialog
	}
	_, typedChoice := p.Form.RequestedSchema.Properties["choice"]
	typedChoice = typedChoice && len(p.Form.RequestedSchema.Properties) == 1
	switch {
	case c.broken == IgnoresUser && typedChoice:
		user = probe.User{Action: "accept", Pick: 0.0}
	case c.broken == IgnoresUser:
		return cancel(), nil
	}
	switch {
	case user.Action == "accept" && typedChoice:
		token, err := pick(p.Form.RequestedSchema, user.Pick)
		if err != nil {
			return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		if c.broken == WrongToken {
			token += "_x"
		}
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{
			Action: "accept", Content: map[string]any{"choice": token},
		}}, nil
	case user.Action == "accept":
		content, err := contentOf(user)
		if err != nil {
			return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: content}}, nil
	}
	return answer(ctx, user)
}

// answerURL answers a URL elicitation as its scripted user says: an accept
// is the user's consent, and the test client opens nothing.
func (c elicitingClient) answerURL(ctx context.Context, p *acp.UnstableCreateElicitationUrl) (acp.UnstableCreateElicitationResponse, error) {
	if !c.advertisesURL && c.broken != AcceptsUnadvertisedURL {
		// ELI-6: a mode that was not advertised is refused as invalid params.
		return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": "url elicitation was not advertised"})
	}
	user, ok, err := instruction(p.Meta)
	switch {
	case err != nil:
		return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	case !ok, c.broken == IgnoresUser:
		return cancel(), nil
	case user.Action == "accept" && (user.Pick != nil || user.Content != nil):
		return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": "a URL elicitation's accept has no pick and no content"})
	case user.Action == "accept":
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept"}}, nil
	}
	return answer(ctx, user)
}

// UnstableCompleteElicitation takes the agent's elicitation/complete: the
// test client opened nothing, so there is nothing to close, and an id it
// does not know, or knows complete, is ignored as the schema says (ELI-5).
func (c elicitingClient) UnstableCompleteElicitation(context.Context, acp.UnstableCompleteElicitationNotification) error {
	return nil
}

// answer answers as a scripted user who does not accept: decline, cancel,
// or wait until the agent cancels the request.
func answer(ctx context.Context, user probe.User) (acp.UnstableCreateElicitationResponse, error) {
	switch user.Action {
	case "decline": // ContentOnDecline adds content as it is written: see declineWithContent
		return acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: "decline"}}, nil
	case "cancel":
		return cancel(), nil
	case "wait": // the SDK ends ctx on the agent's $/cancel_request
		<-ctx.Done()
		return cancel(), nil
	}
	return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown scripted action %q", user.Action)})
}

// contentOf is the content an accept of a form other than a typed choice
// answers with: the instruction's, numbers as written.
func contentOf(user probe.User) (map[string]any, error) {
	if user.Pick != nil || user.Content == nil {
		return nil, fmt.Errorf("the accept of a form that is no typed choice gives content, and no pick")
	}
	var content map[string]any
	dec := json.NewDecoder(bytes.NewReader(user.Content))
	dec.UseNumber()
	if err := dec.Decode(&content); err != nil || content == nil {
		return nil, fmt.Errorf("the scripted content is not a JSON object")
	}
	return content, nil
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

// instruction reads the scripted-user instruction from the request _meta:
// ok when there is one, an error when it is no instruction object (which
// the client refuses, as an action it does not know).
func instruction(meta map[string]any) (u probe.User, ok bool, err error) {
	raw, ok := meta[probe.UserMetaKey]
	if !ok {
		return probe.User{}, false, nil
	}
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &u)
	}
	if err != nil {
		return probe.User{}, true, fmt.Errorf("%s is no scripted-user instruction: %v", probe.UserMetaKey, err)
	}
	return u, true, nil
}

// pick finds the const a pick names: an index into oneOf, or the default.
func pick(schema acp.UnstableElicitationSchema, p any) (string, error) {
	choice, _ := schema.Properties["choice"].(map[string]any)
	if p == probe.PickDefault {
		if d, ok := choice["default"].(string); ok {
			return d, nil
		}
		return "", fmt.Errorf("pick default: the form has no default")
	}
	i, ok := p.(float64)
	oneOf, _ := choice["oneOf"].([]any)
	if !ok || i < 0 || i != float64(int(i)) || int(i) >= len(oneOf) {
		return "", fmt.Errorf("pick %v names none of the %d options", p, len(oneOf))
	}
	opt, _ := oneOf[int(i)].(map[string]any)
	token, ok := opt["const"].(string)
	if !ok {
		return "", fmt.Errorf("option %d has no string const", int(i))
	}
	return token, nil
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
