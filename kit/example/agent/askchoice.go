package main

// The feature: typed-choice elicitation over ACP, written from
// docs/probe.md and suite/contract.md against the kit's session handle,
// as an implementer writes it. AskChoice asks the client to pick one of
// several application values through one elicitation/create form whose
// options carry opaque tokens (choice_0, choice_1, ...), never the values;
// CreateElicitation is the low-level request for any other form or a URL.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/kit"
	"github.com/acpconform/acpconform/reference"
)

// Choice is one offered choice: an application value of any type, and
// what the user sees.
type Choice[T any] struct {
	Value       T
	Label       string
	Description string // optional
	Default     bool   // at most one choice may be the default
}

// Status is the outcome of a choice.
type Status string

// The three outcomes.
const (
	StatusAccepted  Status = "accepted"
	StatusDeclined  Status = "declined"
	StatusCancelled Status = "cancelled"
)

// Result is the outcome of AskChoice: accepted with the offered value,
// declined or cancelled. The zero Result is no outcome.
type Result[T any] struct {
	Status Status
	Value  T // the chosen choice's own value, when accepted
}

// Accept, Decline and Cancel build the three outcomes.
func Accept[T any](value T) Result[T] { return Result[T]{Status: StatusAccepted, Value: value} }
func Decline[T any]() Result[T]       { return Result[T]{Status: StatusDeclined} }
func Cancel[T any]() Result[T]        { return Result[T]{Status: StatusCancelled} }

// Options are the optional parts of an AskChoice call.
type Options[T any] struct {
	// Fallback answers when the client lacks form elicitation, and only
	// then. It must return when its context ends.
	Fallback func(ctx context.Context) (Result[T], error)
	// PlainFallback is a fallback that returns a bare value, read as an
	// acceptance of it, with a warning.
	//
	// Deprecated: a plain value cannot say whether it came from a user, a
	// policy or a configuration. Use Fallback.
	PlainFallback func(ctx context.Context) (T, error)
	// Equal matches a fallback's value to the offered ones, in order, the
	// first match winning; nil is Go's ==. A comparison that panics skips
	// that choice.
	Equal func(offered, candidate T) bool
	// Warn receives deprecation warnings; nil is log.Print.
	Warn func(warning string)
}

// The errors of AskChoice and CreateElicitation, for errors.Is.
var (
	ErrInvalidArgument = errors.New("invalid argument")
	ErrUnsupported     = errors.New("elicitation unsupported by the client")
	ErrInvalidResponse = errors.New("invalid elicitation response")
	ErrInvalidFallback = errors.New("invalid elicitation fallback")
)

// ArgumentError is an invalid argument; it matches ErrInvalidArgument.
type ArgumentError struct{ Reason string }

func (e *ArgumentError) Error() string        { return e.Reason }
func (e *ArgumentError) Is(target error) bool { return target == ErrInvalidArgument }

// PlainValueWarning is the warning of a plain-value fallback.
const PlainValueWarning = "ask_choice: the fallback returned a plain value instead of a result; plain-value fallbacks are deprecated"

// AskChoice asks the session's client to pick one of choices. It validates
// its arguments first; without form elicitation it runs the fallback, if
// there is one, and otherwise fails with ErrUnsupported, sending nothing.
// A JSON-RPC error answer comes back as the kit's *RequestError.
func AskChoice[T any](ctx context.Context, s *kit.Session, question string, choices []Choice[T], o Options[T]) (Result[T], error) {
	if err := validate(question, choices); err != nil {
		return Result[T]{}, err
	}
	if !s.SupportsElicitation("form") {
		return fallback(ctx, choices, o)
	}
	raw, err := s.SendElicitation(ctx, form(question, choices))
	if err != nil {
		return Result[T]{}, err
	}
	return answer(raw, choices)
}

// validate checks the arguments in the contract's order (VAL-1..4).
func validate[T any](question string, choices []Choice[T]) error {
	if strings.TrimSpace(question) == "" { // TrimSpace trims Unicode White_Space
		return &ArgumentError{"question must not be blank"}
	}
	if len(choices) == 0 {
		return &ArgumentError{"choices must not be empty"}
	}
	defaults := 0
	for _, c := range choices {
		if strings.TrimSpace(c.Label) == "" {
			return &ArgumentError{"choice labels must not be blank"}
		}
		if c.Default {
			defaults++
		}
	}
	if defaults > 1 {
		return &ArgumentError{"at most one choice may be the default"}
	}
	return nil
}

// form is the elicitation/create params of a typed choice (SCH-1..7,
// DEF-2); the kit scopes it to the session.
func form[T any](question string, choices []Choice[T]) map[string]any {
	options := make([]map[string]any, len(choices))
	choice := map[string]any{"type": "string", "title": "Choice"}
	for i, c := range choices {
		option := map[string]any{"const": token(i), "title": c.Label}
		if c.Description != "" {
			option["description"] = c.Description
			option["_meta"] = map[string]string{"acpkit.dev/choice-description": c.Description}
		}
		if c.Default {
			choice["default"] = token(i)
		}
		options[i] = option
	}
	choice["oneOf"] = options
	return map[string]any{"mode": "form", "message": question, "requestedSchema": map[string]any{
		"type": "object", "properties": map[string]any{"choice": choice}, "required": []string{"choice"}}}
}

func token(i int) string { return "choice_" + strconv.Itoa(i) }

// answer reads the client's answer: an accept must name one of this
// request's tokens, canonically (TOK-1..4, RES-1..4).
func answer[T any](raw json.RawMessage, choices []Choice[T]) (Result[T], error) {
	action, content, ok := actionOf(raw)
	switch {
	case !ok:
		return Result[T]{}, invalid("the answer is no object with a string action")
	case action == "accept":
		var fields map[string]json.RawMessage
		var token string
		if json.Unmarshal(content, &fields) != nil || json.Unmarshal(fields["choice"], &token) != nil || string(fields["choice"]) == "null" {
			return Result[T]{}, invalid("the content has no string choice")
		}
		i, ok := tokenIndex(token)
		if !ok || i >= len(choices) {
			return Result[T]{}, invalid("the choice is none of the offered tokens")
		}
		return Accept(choices[i].Value), nil
	case action == "decline":
		return Decline[T](), nil // content, if any, is ignored
	case action == "cancel":
		return Cancel[T](), nil
	}
	return Result[T]{}, invalid("unknown action")
}

// actionOf reads an answer's action and content, names matched exactly
// (encoding/json's structs would match "Action" too).
func actionOf(raw json.RawMessage) (action string, content json.RawMessage, ok bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || json.Unmarshal(fields["action"], &action) != nil || string(fields["action"]) == "null" {
		return "", nil, false
	}
	return action, fields["content"], true
}

// tokenIndex parses "choice_" and ASCII digits without sign or padding.
func tokenIndex(token string) (int, bool) {
	digits, ok := strings.CutPrefix(token, "choice_")
	if !ok || digits == "" || (digits[0] == '0' && len(digits) > 1) || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	i, err := strconv.Atoi(digits) // fails past an int
	return i, err == nil
}

func invalid(reason string) error {
	return fmt.Errorf("%w: no valid choice: %s", ErrInvalidResponse, reason)
}

// fallback runs the fallback of a client without form elicitation and
// maps an acceptance to the offered choice's own value (FB, DEP).
func fallback[T any](ctx context.Context, choices []Choice[T], o Options[T]) (Result[T], error) {
	var res Result[T]
	switch {
	case o.Fallback != nil:
		var err error
		if res, err = o.Fallback(ctx); err != nil {
			return Result[T]{}, err // unchanged (FB-5)
		}
	case o.PlainFallback != nil:
		v, err := o.PlainFallback(ctx)
		if err != nil {
			return Result[T]{}, err
		}
		warn := o.Warn
		if warn == nil {
			warn = func(w string) { log.Print(w) }
		}
		warn(PlainValueWarning)
		res = Accept(v)
	default:
		return Result[T]{}, fmt.Errorf("%w: no form elicitation in the client's capabilities and no fallback", ErrUnsupported)
	}
	switch res.Status {
	case StatusDeclined, StatusCancelled:
		return res, nil
	case StatusAccepted:
		for _, c := range choices {
			if same(o.Equal, c.Value, res.Value) {
				return Accept(c.Value), nil
			}
		}
		return Result[T]{}, fmt.Errorf("%w: the fallback's value was not offered", ErrInvalidFallback)
	}
	return Result[T]{}, fmt.Errorf("%w: the fallback returned no outcome", ErrInvalidFallback)
}

// same compares two values, a panic meaning "not the same" (FB-6).
func same[T any](equal func(offered, candidate T) bool, offered, candidate T) (eq bool) {
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

// ElicitationRequest is a low-level elicitation: a form with its schema,
// or a URL with its id.
type ElicitationRequest struct {
	Mode            string // "form" or "url"
	Message         string
	RequestedSchema json.RawMessage // form
	URL             string          // url
	ElicitationID   string          // url
}

// ElicitationResult is the client's answer: its action, and an accepted
// form's content as the client wrote it.
type ElicitationResult struct {
	Action  string // "accept", "decline" or "cancel"
	Content json.RawMessage
}

// CreateElicitation sends req if the client advertised its mode (ELI-1)
// and checks an accepted form's content against the schema (ELI-3).
func CreateElicitation(ctx context.Context, s *kit.Session, req ElicitationRequest) (ElicitationResult, error) {
	if !s.SupportsElicitation(req.Mode) {
		return ElicitationResult{}, fmt.Errorf("%w: mode %q was not advertised", ErrUnsupported, req.Mode)
	}
	params := map[string]any{"mode": req.Mode, "message": req.Message}
	if req.Mode == "form" {
		params["requestedSchema"] = req.RequestedSchema
	} else {
		params["url"], params["elicitationId"] = req.URL, req.ElicitationID
	}
	raw, err := s.SendElicitation(ctx, params)
	if err != nil {
		return ElicitationResult{}, err
	}
	action, content, ok := actionOf(raw)
	if !ok {
		return ElicitationResult{}, fmt.Errorf("%w: the answer is no object with a string action", ErrInvalidResponse)
	}
	res := ElicitationResult{Action: action, Content: content}
	switch {
	case res.Action == "accept" && req.Mode == "form":
		// Any JSON Schema validator will do; here, the reference's.
		if problems := reference.ContentProblems(req.RequestedSchema, res.Content); len(problems) > 0 {
			return ElicitationResult{}, fmt.Errorf("%w: %s", ErrInvalidResponse, strings.Join(problems, "; "))
		}
	case res.Action == "accept", res.Action == "decline", res.Action == "cancel":
		res.Content = nil // means nothing
	default:
		return ElicitationResult{}, fmt.Errorf("%w: unknown action %q", ErrInvalidResponse, res.Action)
	}
	return res, nil
}
