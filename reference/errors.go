package reference

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Sentinel errors for the failure kinds of the contract. Test them with
// [errors.Is]; the typed errors below carry the details.
var (
	// ErrInvalidArgument: the question or its choices break CONTRACT VAL-1..4.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrElicitationUnsupported: the client did not advertise the elicitation
	// mode on this connection, and for AskChoice no fallback was given (CAP-3).
	ErrElicitationUnsupported = errors.New("elicitation unsupported by the client")
	// ErrInvalidResponse: the client's answer names no valid choice (TOK-2, RES-2).
	ErrInvalidResponse = errors.New("invalid elicitation response")
	// ErrInvalidFallback: a fallback's acceptance names no offered choice (FB-4).
	ErrInvalidFallback = errors.New("invalid elicitation fallback")
	// ErrConnectionClosed: the connection ended before the client answered (RTE-7).
	ErrConnectionClosed = errors.New("connection closed")
)

// ArgumentError is an invalid argument to [AskChoice]. It matches
// [ErrInvalidArgument] with errors.Is; the four kinds are the sentinels below.
type ArgumentError struct{ Reason string }

func (e *ArgumentError) Error() string { return e.Reason }

// Is makes every ArgumentError match ErrInvalidArgument.
func (e *ArgumentError) Is(target error) bool { return target == ErrInvalidArgument }

// The four invalid arguments, in the order they are checked (VAL-1..4).
var (
	ErrBlankQuestion      = &ArgumentError{"question must not be blank"}
	ErrNoChoices          = &ArgumentError{"choices must not be empty"}
	ErrBlankLabel         = &ArgumentError{"choice labels must not be blank"}
	ErrMoreThanOneDefault = &ArgumentError{"at most one choice may be the default"}
)

// ResponseError is a client answer that [AskChoice] cannot turn into an
// outcome. It matches [ErrInvalidResponse].
type ResponseError struct {
	Reason string          // what was wrong, for people
	Result json.RawMessage // the answer as received
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("invalid elicitation response: no valid choice: %s", e.Reason)
}

// Is makes every ResponseError match ErrInvalidResponse.
func (e *ResponseError) Is(target error) bool { return target == ErrInvalidResponse }

// FallbackError is a fallback acceptance whose value was not offered. It
// matches [ErrInvalidFallback].
type FallbackError struct{ Reason string }

func (e *FallbackError) Error() string { return "invalid elicitation fallback: " + e.Reason }

// Is makes every FallbackError match ErrInvalidFallback.
func (e *FallbackError) Is(target error) bool { return target == ErrInvalidFallback }

// RequestError is a JSON-RPC error answer to a request, kept intact: the
// method that was called and the code, message and data the client sent.
// A client that has not registered its elicitation/create route answers code
// -32601 (CONTRACT RTE-1).
type RequestError struct {
	Method  string
	Code    int
	Message string
	Data    json.RawMessage // absent when the error had no data
}

func (e *RequestError) Error() string {
	s := fmt.Sprintf("%s: JSON-RPC error %d: %s", e.Method, e.Code, e.Message)
	if len(e.Data) > 0 {
		s += " " + string(e.Data)
	}
	return s
}

// JSON-RPC error codes that ask_choice's callers meet most.
const (
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)
