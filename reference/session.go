package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

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
// capabilities contain elicitation.<mode> present and non-null. An empty
// elicitation object advertises nothing (CONTRACT CAP-1, CAP-2).
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
// client's answer as received. It is the low-level API under [AskChoice], for
// multi-field forms, URL elicitation and other schema shapes. It sends nothing
// and fails with [ErrElicitationUnsupported] when the client did not advertise
// req.Mode. Besides the errors of [Requester], it fails with a
// [*ResponseError] when the answer is not an object or its action is not a
// string; any other action, known or not, is left to the caller.
func (s *Session) CreateElicitation(ctx context.Context, req ElicitationRequest) (ElicitationResponse, error) {
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

func (s *Session) logger() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}
