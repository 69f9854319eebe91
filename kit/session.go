package kit

import (
	"context"
	"encoding/json"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/reference"
)

// ElicitationCreate is the method name of an elicitation request.
const ElicitationCreate = acp.ClientMethodElicitationCreate

// Session is the prompt's ACP session, as an ask_choice needs it: its id,
// the client capabilities its connection received in initialize, and a way
// to send the client requests on it.
//
// It implements [Requester], so the reference's AskChoice runs on it
// too. The kit makes one for each prompt; [NewSession] makes one for your
// tests.
type Session struct {
	// ID is the ACP session id of the prompt.
	ID acp.SessionId
	// ClientCapabilities is what the client advertised in initialize on
	// this connection. An elicitation mode that was not a JSON object or
	// null on the wire (false, "yes", []) advertises nothing and is read
	// as absent (docs/probe.md §1.1), so Elicitation.Form is non-nil
	// exactly when the client advertised form elicitation.
	ClientCapabilities acp.ClientCapabilities

	client Requester
}

// Requester sends one JSON-RPC request to the client and waits for its
// result, with the errors [Session.Request] describes.
type Requester = reference.Requester

// NewSession returns a session whose requests client sends: a fake client
// of your tests, say.
func NewSession(id acp.SessionId, caps acp.ClientCapabilities, client Requester) *Session {
	return &Session{ID: id, ClientCapabilities: caps, client: client}
}

// SupportsElicitation reports whether the client advertised mode ("form"
// or "url") on this connection: its capabilities hold elicitation.<mode>
// as a JSON object (CONTRACT CAP-1, CAP-2).
func (s *Session) SupportsElicitation(mode string) bool {
	e := s.ClientCapabilities.Elicitation
	switch {
	case e == nil:
		return false
	case mode == "form":
		return e.Form != nil
	case mode == "url":
		return e.Url != nil
	}
	return false
}

// SendElicitation sends elicitation/create with params and returns the
// client's result as it came, or an error: see [Session.Request]. params
// must marshal to a JSON object; when it has no "sessionId", the
// session's id is added, so the request is scoped to the prompt's session
// (SCH-1). It sends what it is given: checking the capability first is
// the caller's job (CAP-1), and so is reading the result (TOK, RES).
func (s *Session) SendElicitation(ctx context.Context, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("kit: the elicitation params cannot be written: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("kit: the elicitation params are not a JSON object: %s", b)
	}
	if _, ok := fields["sessionId"]; !ok {
		fields["sessionId"], _ = json.Marshal(s.ID)
	}
	return s.Request(ctx, ElicitationCreate, fields)
}

// Request sends the client a request with params marshalled as they are
// and returns the raw result. A JSON-RPC error answer is a [*RequestError]
// with the code, message and data as the client sent them; the
// connection's end before the answer is an error matching
// [ErrConnectionClosed]; when ctx ends first, the client is told with
// $/cancel_request and the error matches ctx.Err().
func (s *Session) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.client.Request(ctx, method, params)
}

// RequestError is a JSON-RPC error answer, kept intact: the method called
// and the code, message and data the client sent.
type RequestError = reference.RequestError

// ErrConnectionClosed is the error of a request whose connection ended
// before the client answered (RTE-7).
var ErrConnectionClosed = reference.ErrConnectionClosed
