package reference

import (
	"context"
	"fmt"
)

// AskChoice asks the session's client to pick one of choices and returns the
// outcome: accepted with the chosen choice's own value, declined or cancelled.
//
// In order, it
//  1. validates the arguments (VAL-1..5): an [*ArgumentError] before anything else;
//  2. checks that the client advertised form elicitation on this connection
//     (CAP-1, CAP-2); without it, runs the fallback if one was given (FB) and
//     otherwise fails with [ErrElicitationUnsupported], sending nothing;
//  3. sends one elicitation/create form whose options carry opaque tokens
//     choice_0, choice_1, ... instead of the values (SCH, DEF-2);
//  4. maps the answer back: an accept must name one of this request's tokens,
//     whatever the default (TOK, DEF-3); anything else is a [*ResponseError].
//
// A JSON-RPC error answer, such as -32601 from a client that has not
// registered its elicitation/create route, is returned as a [*RequestError]
// with code, message and data intact; the fallback does not run (RTE-1,
// RTE-2). A connection that closes while the choice is pending fails with
// [ErrConnectionClosed]; when ctx ends, AskChoice returns ctx's error and the
// client is told with $/cancel_request (RTE-7).
func AskChoice[T any](ctx context.Context, s *Session, question string, choices []Choice[T], opts ...Option[T]) (Result[T], error) {
	if err := validate(question, choices); err != nil {
		return Result[T]{}, err
	}
	var o options[T]
	for _, opt := range opts {
		opt(&o)
	}
	if !s.SupportsElicitation(ModeForm) {
		if o.fallback != nil {
			return runFallback(ctx, s, choices, &o)
		}
		return Result[T]{}, fmt.Errorf("%w: no form elicitation in the client's capabilities and no fallback", ErrElicitationUnsupported)
	}
	resp, err := s.send(ctx, compile(question, choices))
	if err != nil {
		return Result[T]{}, err
	}
	status, i, err := readChoice(resp, len(choices))
	if err != nil {
		return Result[T]{}, err
	}
	switch status {
	case StatusAccepted:
		return Accept(choices[i].Value), nil
	case StatusDeclined:
		return Decline[T](), nil
	default:
		return Cancel[T](), nil
	}
}
