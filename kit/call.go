package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/acpconform/acpconform/probe"
)

// Call is one probe request for ask_choice (docs/probe.md §1.3), ready to
// hand to yours: the session, the question, the choices and the fallback
// the request names, and what the outcome needs from you.
type Call struct {
	// Session is the prompt's session: send elicitation/create on it.
	Session *Session
	// Question is the question exactly as the request gives it: it may be
	// blank, and your ask_choice must refuse that (VAL-1).
	Question string
	// Choices are the offered choices, in order.
	Choices []Choice
	// Fallback is the fallback the request names, as a function returning
	// an outcome, or nil when the request names none or the plain-value
	// kind. [Fallback] turns it into one returning your own result type.
	// It waits the request's fallbackDelayMs first, and ends with ctx's
	// error as soon as ctx ends.
	Fallback func(ctx context.Context) (Result, error)
	// PlainFallback is the deprecated plain-value fallback the request
	// names, returning the bare value, or nil when it names none of that
	// kind. It waits as Fallback does.
	PlainFallback func(ctx context.Context) (any, error)
	// Equal is the probe's equality of values, for matching a fallback's
	// value to the offered ones: equal as JSON, exactly ([probe.SameValue],
	// docs/probe.md §1.7). Your ask_choice may compare values its own way
	// by default; for the checks, give it Equal.
	Equal func(offered, candidate any) bool
	// Warn records a deprecation warning of the call, listed in the
	// outcome. A warning that mentions a "plain value" is listed as
	// plain-value-fallback, the one warning the contract knows (DEP-1);
	// any other text as it is.
	Warn func(warning string)
	// Log is a logger for a warning sink of the slog kind: each record at
	// warn level or above is a warning, named by its "deprecated"
	// attribute when it has one and otherwise read as Warn reads its text.
	Log *slog.Logger

	ctx context.Context
}

// Context returns the context of the call, as http.Request's does: it
// ends when the prompt turn is cancelled (session/cancel, or the client's
// $/cancel_request for the prompt) or the connection ends. Pass it to
// everything your ask_choice waits on.
func (c *Call) Context() context.Context { return c.ctx }

// ElicitationCall is one probe request for create_elicitation
// (docs/probe.md §1.9): the mode, the message and the form's schema or the
// URL, each exactly as the request gives it.
type ElicitationCall struct {
	Session *Session
	Mode    string // "form" or "url"
	Message string
	// RequestedSchema is the form's schema as the request wrote it, every
	// number as written; nil for a URL.
	RequestedSchema json.RawMessage
	URL             string // a URL elicitation's URL
	ElicitationID   string // a URL elicitation's id

	ctx context.Context
}

// Context returns the context of the call: see [Call.Context].
func (c *ElicitationCall) Context() context.Context { return c.ctx }

// Choice is one offered choice. Value is nil for a JSON null and
// otherwise a *[Value] of its own, so the value your ask_choice returns
// tells, by identity, which choice it is.
type Choice struct {
	Value       any
	Label       string
	Description string // "" when the choice has none
	Default     bool
}

// Value is a JSON value of a probe request other than null. Each offered
// value is a pointer of its own: compare pointers to find the offered
// choice, or [Call.Equal] to compare values.
type Value struct{ raw json.RawMessage }

// NewValue returns the value of raw JSON as a choice carries it: nil for
// null, a new *Value otherwise.
func NewValue(raw json.RawMessage) any {
	if len(raw) == 0 || probe.SameValue(raw, json.RawMessage("null")) {
		return nil
	}
	return &Value{raw: append(json.RawMessage(nil), raw...)}
}

// JSON returns the value as the request wrote it.
func (v *Value) JSON() json.RawMessage { return v.raw }

// MarshalJSON writes the value as the request wrote it.
func (v *Value) MarshalJSON() ([]byte, error) { return v.raw, nil }

// String returns the value's JSON text.
func (v *Value) String() string { return string(v.raw) }

// jsonOf returns a value an ask_choice returned as JSON: a *Value as the
// request wrote it, nil as null, anything else as encoding/json writes it.
func jsonOf(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("null"), nil
	case *Value:
		return v.raw, nil
	}
	return json.Marshal(v)
}

// equal is Call.Equal: the two values equal as JSON.
func equal(offered, candidate any) bool {
	a, errA := jsonOf(offered)
	b, errB := jsonOf(candidate)
	return errA == nil && errB == nil && probe.SameValue(a, b)
}

// The statuses of a [Result], as the seed names them.
const (
	StatusAccepted  = "accepted"
	StatusDeclined  = "declined"
	StatusCancelled = "cancelled"
)

// Result is an outcome of ask_choice, or of a fallback: Status is one of
// StatusAccepted (with Value), StatusDeclined or StatusCancelled. Your
// ask_choice may return a Result, or a result of its own type (see
// [Agent]).
type Result struct {
	Status string
	Value  any
}

// Accepted returns the accepted outcome with value.
func Accepted(value any) Result { return Result{Status: StatusAccepted, Value: value} }

// Declined returns the declined outcome.
func Declined() Result { return Result{Status: StatusDeclined} }

// Cancelled returns the cancelled outcome.
func Cancelled() Result { return Result{Status: StatusCancelled} }

// Fallback returns c.Fallback as a function that returns your own result
// type R, built with your constructors, or nil when c.Fallback is nil.
func Fallback[R any](c *Call, accepted func(value any) R, declined, cancelled func() R) func(context.Context) (R, error) {
	if c.Fallback == nil {
		return nil
	}
	return func(ctx context.Context) (R, error) {
		var zero R
		res, err := c.Fallback(ctx)
		switch {
		case err != nil:
			return zero, err
		case res.Status == StatusAccepted:
			return accepted(res.Value), nil
		case res.Status == StatusDeclined:
			return declined(), nil
		case res.Status == StatusCancelled:
			return cancelled(), nil
		}
		return zero, fmt.Errorf("kit: the fallback returned status %q, none of accepted, declined, cancelled", res.Status)
	}
}

// MapChoices returns the choices as your own choice type C, each built by
// build.
func MapChoices[C any](choices []Choice, build func(Choice) C) []C {
	out := make([]C, len(choices))
	for i, c := range choices {
		out[i] = build(c)
	}
	return out
}

// FallbackError is the error of a fallback of kind "error": its Message
// is the request's. An ask_choice must return it unchanged, or wrapped so
// that errors.As finds it (FB-5); the outcome is then fallback_error with
// that message.
type FallbackError struct{ Message string }

func (e *FallbackError) Error() string { return e.Message }

// fallbacks builds the fallback a probe request names into c.
func (c *Call) fallbacks(f *probe.Fallback, delay time.Duration) {
	if f == nil {
		return
	}
	if f.Kind == probe.FallbackPlain {
		raw := f.Value
		c.PlainFallback = func(ctx context.Context) (any, error) {
			if err := wait(ctx, delay); err != nil {
				return nil, err
			}
			return NewValue(raw), nil // a copy of its own, as a real fallback's value is
		}
		return
	}
	kind, raw, message := f.Kind, f.Value, f.Message
	c.Fallback = func(ctx context.Context) (Result, error) {
		if err := wait(ctx, delay); err != nil {
			return Result{}, err
		}
		switch kind {
		case probe.FallbackAccepted:
			return Accepted(NewValue(raw)), nil
		case probe.FallbackDeclined:
			return Declined(), nil
		case probe.FallbackCancelled:
			return Cancelled(), nil
		case probe.FallbackError:
			return Result{}, &FallbackError{Message: message}
		}
		return Result{}, fmt.Errorf("kit: unknown fallback kind %q", kind)
	}
}

// wait waits for d, or until ctx ends, as a fallback that takes its time.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// warnings collects the deprecation warnings of one call, in order.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) add(text string) {
	if strings.Contains(strings.ToLower(text), "plain value") || strings.Contains(text, probe.WarningPlainValue) {
		text = probe.WarningPlainValue
	}
	w.mu.Lock()
	w.list = append(w.list, text)
	w.mu.Unlock()
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}

// handler is the slog.Handler of Call.Log: it adds each record at warn
// level or above to the call's warnings.
type handler struct {
	w     *warnings
	attrs []slog.Attr // of With
}

func (h handler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h handler) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return nil
	}
	text := r.Message
	named := func(a slog.Attr) bool {
		if a.Key == "deprecated" {
			text = a.Value.String()
			return false
		}
		return true
	}
	for _, a := range h.attrs {
		if !named(a) {
			break
		}
	}
	r.Attrs(named)
	h.w.add(text)
	return nil
}

func (h handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return handler{w: h.w, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h handler) WithGroup(string) slog.Handler { return h }
