package reference

import (
	"context"
	"log/slog"
)

// Option configures one [AskChoice] call.
type Option[T any] func(*options[T])

type options[T any] struct {
	fallback func(ctx context.Context, s *Session) (Result[T], error)
	equal    func(offered, candidate T) bool
}

// WithFallback gives AskChoice a deliberate non-ACP way to answer when the
// client lacks form elicitation. It runs only then (CONTRACT FB-1), never
// after the client has been asked, whatever the client answers.
//
// fn may return at once or block; it must return when ctx is done. Its
// declined and cancelled results are returned unchanged, and its error is
// returned unchanged. An accepted result must name an offered choice (see
// [WithEqual] for how values are matched): AskChoice then returns that
// choice's own value, and otherwise fails with a [FallbackError]. Return an
// acceptance only when the fallback has a source of acceptance your
// application is willing to treat as the user's.
//
// A later fallback option replaces an earlier one.
func WithFallback[T any](fn func(ctx context.Context) (Result[T], error)) Option[T] {
	return func(o *options[T]) {
		o.fallback = func(ctx context.Context, _ *Session) (Result[T], error) { return fn(ctx) }
	}
}

// PlainValueWarning is the deprecation warning of [WithPlainFallback].
const PlainValueWarning = "ask_choice: the fallback returned a plain value instead of a result; " +
	"plain-value fallbacks are deprecated: return reference.Accept, Decline or Cancel from WithFallback"

// WithPlainFallback is like [WithFallback] for a fallback that returns a bare
// value, read as an acceptance of that value. Each call that receives a value
// logs [PlainValueWarning] once, before the value is checked, to the session's
// Log at warn level with the attribute deprecated=plain-value-fallback. The
// value is matched against the offered choices as for WithFallback; a nil
// value is a real value, never a decline or cancel.
//
// Deprecated: a plain value cannot say whether it came from a user, a policy
// or a configuration. Use [WithFallback] and return [Accept], [Decline] or
// [Cancel].
func WithPlainFallback[T any](fn func(ctx context.Context) (T, error)) Option[T] {
	return func(o *options[T]) {
		o.fallback = func(ctx context.Context, s *Session) (Result[T], error) {
			v, err := fn(ctx)
			if err != nil {
				return Result[T]{}, err
			}
			s.logger().WarnContext(ctx, PlainValueWarning, slog.String("deprecated", "plain-value-fallback"))
			return Accept(v), nil
		}
	}
}

// WithEqual replaces the rule that matches a fallback's value to the offered
// choices.
//
// The default rule is Go's == on the values as interfaces, any(offered) ==
// any(candidate): pointers match only themselves, structs field by field.
// Offered choices are scanned in order and the first match wins. A
// comparison that panics, as == does for slices, maps, functions and structs
// holding them, skips that choice and the scan goes on; so does a panic in
// equal. AskChoice itself never panics for it.
func WithEqual[T any](equal func(offered, candidate T) bool) Option[T] {
	return func(o *options[T]) { o.equal = equal }
}

// runFallback runs the configured fallback and checks its outcome
// (CONTRACT FB-2..6, DEP-1..3).
func runFallback[T any](ctx context.Context, s *Session, choices []Choice[T], o *options[T]) (Result[T], error) {
	res, err := o.fallback(ctx, s)
	if err != nil {
		return Result[T]{}, err
	}
	switch res.Status() {
	case StatusDeclined, StatusCancelled:
		return res, nil
	case StatusAccepted:
		i, ok := findOffered(choices, res.Value(), o.equal)
		if !ok {
			return Result[T]{}, &FallbackError{Reason: "the fallback's value was not offered"}
		}
		return Accept(choices[i].Value), nil
	default:
		return Result[T]{}, &FallbackError{Reason: "the fallback returned the zero Result, which is not an outcome"}
	}
}

// findOffered returns the index of the first choice whose value matches v.
func findOffered[T any](choices []Choice[T], v T, equal func(offered, candidate T) bool) (int, bool) {
	for i, c := range choices {
		if matches(equal, c.Value, v) {
			return i, true
		}
	}
	return 0, false
}

// matches compares two values, reading a panic as "no match".
func matches[T any](equal func(offered, candidate T) bool, offered, candidate T) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	if equal != nil {
		return equal(offered, candidate)
	}
	return any(offered) == any(candidate)
}
