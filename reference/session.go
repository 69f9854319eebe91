package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// Requester sends one JSON-RPC request to the client and waits for its
// result. [AgentConnection] is the Requester of a live ACP connection; tests
// and custom transports may bring their own.
//
// Request returns a [*RequestError] for a JSON-RPC error answer, an error
// matching [ErrConnectionClosed] when the connection ends before the answer,
// and an error matching ctx.Err() when ctx ends first, after telling the
// client with $/cancel_request.
type Requester interface {
	Request(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Session is what AskChoice needs from a live ACP session: its id, the client
// capabilities received in initialize on the session's connection, and a way
// to send requests to that client. [AgentConnection.Session] builds one.
type Session struct {
	ID                 acp.SessionId
	ClientCapabilities acp.ClientCapabilities
	Client             Requester

	// Log receives deprecation warnings (see WithPlainFallback). Nil means
	// slog.Default().
	Log *slog.Logger
}

// SupportsElicitation reports whether the client advertised mode: its
// capabilities contain elicitation.<mode> as a JSON object. An empty
// elicitation object advertises nothing, and neither does a mode that is
// null or of another JSON type, which [AgentConnection] reads as absent
// (CONTRACT CAP-1, CAP-2).
func (s *Session) SupportsElicitation(mode ElicitationMode) bool {
	e := s.ClientCapabilities.Elicitation
	if e == nil {
		return false
	}
	switch mode {
	case ModeForm:
		return e.Form != nil
	case ModeURL:
		return e.Url != nil
	}
	return false
}

// CreateElicitation sends req, scoped to this session, and returns the
// client's answer: the low-level API under [AskChoice], for multi-field
// forms, URL elicitation and other schema shapes (CONTRACT ELI-1..3). It
// sends nothing and fails with [ErrElicitationUnsupported] when the client
// did not advertise req.Mode. Besides the errors of [Requester], it fails
// with a [*ResponseError] when the answer is not an object or its action
// not a string, or an accepted form's content does not satisfy
// req.RequestedSchema ([ContentProblems]). The content of a decline, a
// cancel or an accepted URL elicitation means nothing and is dropped; an
// accepted form's content is returned as received, every number as
// written. Any other action, a custom one included, is handed back as it
// came, for the caller to keep or refuse.
func (s *Session) CreateElicitation(ctx context.Context, req ElicitationRequest) (ElicitationResponse, error) {
	resp, err := s.send(ctx, req)
	if err != nil {
		return resp, err
	}
	switch {
	case resp.Action == "accept" && req.Mode == ModeForm:
		schema, err := json.Marshal(req.RequestedSchema)
		if err != nil {
			return resp, fmt.Errorf("reference: the requested schema cannot be written: %w", err)
		}
		if problems := ContentProblems(schema, resp.Content); len(problems) > 0 {
			return resp, &ResponseError{Reason: "the accepted content does not satisfy the requested schema: " + strings.Join(problems, "; "), Result: resp.Raw}
		}
		if isNull(resp.Content) {
			resp.Content = nil // absent and null are the same (schema 1.21.0)
		}
	case resp.Action == "accept", resp.Action == "decline", resp.Action == "cancel":
		resp.Content = nil
	}
	return resp, nil
}

// send sends req, scoped to this session, after checking that the client
// advertised its mode, and returns the answer as received, judging nothing
// but its being an object with a string action.
func (s *Session) send(ctx context.Context, req ElicitationRequest) (ElicitationResponse, error) {
	if !s.SupportsElicitation(req.Mode) {
		return ElicitationResponse{}, fmt.Errorf("%w: mode %q was not advertised", ErrElicitationUnsupported, req.Mode)
	}
	req.SessionID = s.ID
	raw, err := s.Client.Request(ctx, acp.ClientMethodElicitationCreate, req)
	if err != nil {
		return ElicitationResponse{}, err
	}
	return decodeResponse(raw)
}

// asAdvertised returns initialize params in which the client's
// elicitation capabilities hold only JSON objects or null: a member
// elicitation, elicitation.form or elicitation.url of another JSON type
// (false, "yes", [], 1) advertises nothing (CAP-1, CAP-2) and is dropped,
// so that the typed decoding, which cannot hold it, reads it as absent
// instead of refusing the whole initialize. So is a member whose name only
// resembles one of these ("ClientCapabilities", "Elicitation", "Form"):
// ACP's SDKs match names exactly and read it as unknown, where the typed
// decoding, encoding/json's, would take it for the member it resembles
// (CONTRACT "Reading the wire"). Other params pass unchanged.
func asAdvertised(params json.RawMessage) json.RawMessage {
	var p, caps, e map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p == nil {
		return params // not for us to judge: the typed decoding refuses it
	}
	changed := dropLookalikes(p, "clientCapabilities")
	if json.Unmarshal(p["clientCapabilities"], &caps) != nil || caps == nil {
		return remarshal(p, changed, params) // absent, null, or for the typed decoding to refuse
	}
	capsChanged := dropLookalikes(caps, "elicitation")
	raw, ok := caps["elicitation"]
	switch {
	case !ok || isNull(raw):
	case !isObject(raw):
		delete(caps, "elicitation") // advertises nothing
		capsChanged = true
	default:
		_ = json.Unmarshal(raw, &e)
		modesChanged := dropLookalikes(e, "form", "url")
		for _, mode := range []string{"form", "url"} {
			if v, ok := e[mode]; ok && !isObject(v) && !isNull(v) {
				delete(e, mode) // advertises nothing
				modesChanged = true
			}
		}
		if modesChanged {
			caps["elicitation"], _ = json.Marshal(e)
			capsChanged = true
		}
	}
	if capsChanged {
		p["clientCapabilities"], _ = json.Marshal(caps)
	}
	return remarshal(p, changed || capsChanged, params)
}

// dropLookalikes deletes the members of m whose names differ from one of
// names only by case, and reports whether there were any.
func dropLookalikes(m map[string]json.RawMessage, names ...string) bool {
	dropped := false
	for k := range m {
		for _, name := range names {
			if strings.EqualFold(k, name) && k != name {
				delete(m, k)
				dropped = true
			}
		}
	}
	return dropped
}

// remarshal is p written again when changed, and params otherwise.
func remarshal(p map[string]json.RawMessage, changed bool, params json.RawMessage) json.RawMessage {
	if !changed {
		return params
	}
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// isObject reports whether raw, valid JSON, is an object.
func isObject(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '{'
}

func (s *Session) logger() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}
