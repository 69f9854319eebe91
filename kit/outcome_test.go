package kit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
)

// The user's errors, as a feature might define them.
var (
	errBlank     = errors.New("question must not be blank")
	errNoChoices = errors.New("choices must not be empty")
	errNotMine   = errors.New("unsupported")
)

type responseError struct{ reason string }

func (e *responseError) Error() string { return e.reason }

type fallbackValueError struct{ reason string }

func (e fallbackValueError) Error() string { return e.reason }

var userErrors = Errors{
	InvalidArgument: errors.Join(errBlank, errNoChoices),
	Unsupported:     errNotMine,
	InvalidResponse: (*responseError)(nil),
	InvalidFallback: (*fallbackValueError)(nil),
}

func code(c int) *int { return &c }

func TestErrorsMapTheUsersErrorsThroughTheWrapChain(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want probe.Outcome
	}{
		{"a joined sentinel", errBlank, probe.Outcome{Error: "invalid_argument", Message: "question must not be blank"}},
		{"the other joined sentinel, wrapped", fmt.Errorf("ask: %w", errNoChoices), probe.Outcome{Error: "invalid_argument", Message: "ask: choices must not be empty"}},
		{"a sentinel", errNotMine, probe.Outcome{Error: "unsupported", Message: "unsupported"}},
		{"a pointer type", fmt.Errorf("reading: %w", &responseError{"no token"}), probe.Outcome{Error: "invalid_response", Message: "reading: no token"}},
		{"a value type", fallbackValueError{"not offered"}, probe.Outcome{Error: "invalid_fallback", Message: "not offered"}},
		{"the fallback's error, wrapped, keeps its message", fmt.Errorf("fallback: %w", &FallbackError{Message: "the policy says no"}),
			probe.Outcome{Error: "fallback_error", Message: "the policy says no"}},
		{"a JSON-RPC error, wrapped", fmt.Errorf("ask: %w", &RequestError{Method: "elicitation/create", Code: -32601, Message: "Method not found", Data: json.RawMessage(`{"method":"elicitation/create"}`)}),
			probe.Outcome{Error: "request_error", Code: code(-32601), Message: "Method not found", Data: json.RawMessage(`{"method":"elicitation/create"}`)}},
		{"an SDK's JSON-RPC error", acp.NewInvalidParams(map[string]any{"why": "no"}),
			probe.Outcome{Error: "request_error", Code: code(-32602), Message: "Invalid params", Data: json.RawMessage(`{"why":"no"}`)}},
		{"the connection's end", fmt.Errorf("elicitation/create: %w before the client answered", ErrConnectionClosed),
			probe.Outcome{Error: "connection", Message: "elicitation/create: connection closed before the client answered"}},
		{"anything else", errors.New("boom"), probe.Outcome{Error: "internal", Message: "boom"}},
		{"an error of the same type as a sentinel is not that sentinel", errors.New("unsupported!"), probe.Outcome{Error: "internal", Message: "unsupported!"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.Acpconform, tc.want.Outcome = probe.Version, probe.OutcomeError
			if diff := cmp.Diff(tc.want, userErrors.errorOutcome(tc.err)); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// The user's own result types, read by name.
type (
	fieldResult struct {
		Status string
		Value  any
	}
	status        string
	methodResult  struct{ s status }
	noStatus      struct{ Value any }
	numericStatus struct{ Status int }
	noValue       struct{ Status string }
)

func (r methodResult) Status() status { return r.s }
func (r methodResult) Value() any     { return nil }

func TestChoiceOutcomeReadsTheUsersResult(t *testing.T) {
	offered := NewValue(json.RawMessage(`{"env":"production","replicas":3}`))
	copied := NewValue(json.RawMessage(`{"replicas":3,"env":"production"}`))
	c := &Call{Choices: []Choice{{Value: NewValue(json.RawMessage(`"preview"`))}, {Value: offered}, {Value: nil}}}
	index := func(i int) *int { return &i }
	for _, tc := range []struct {
		name string
		res  any
		want probe.Outcome
	}{
		{"a field result, offered", fieldResult{Status: "accepted", Value: offered},
			probe.Outcome{Outcome: "accepted", Index: index(1), Value: json.RawMessage(`{"env":"production","replicas":3}`)}},
		{"a copy is no offered value", &fieldResult{Status: "accepted", Value: copied},
			probe.Outcome{Outcome: "accepted", Index: index(-1), Value: json.RawMessage(`{"replicas":3,"env":"production"}`)}},
		{"null is the nil choice", Accepted(nil), probe.Outcome{Outcome: "accepted", Index: index(2), Value: json.RawMessage(`null`)}},
		{"a value of the user's own", Accepted(map[string]int{"a": 1}), probe.Outcome{Outcome: "accepted", Index: index(-1), Value: json.RawMessage(`{"a":1}`)}},
		{"a method result", methodResult{"declined"}, probe.Outcome{Outcome: "declined"}},
		{"the reference's result", reference.Cancel[any](), probe.Outcome{Outcome: "cancelled"}},
		{"no result", nil, probe.Outcome{Outcome: "error", Error: "internal"}},
		{"no status", noStatus{}, probe.Outcome{Outcome: "error", Error: "internal"}},
		{"a status that is no string", numericStatus{1}, probe.Outcome{Outcome: "error", Error: "internal"}},
		{"the zero result", Result{}, probe.Outcome{Outcome: "error", Error: "internal"}},
		{"an accept without a Value is not the null choice", noValue{Status: "accepted"}, probe.Outcome{Outcome: "error", Error: "internal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := userErrors.choiceOutcome(c, tc.res, nil)
			tc.want.Acpconform = probe.Version
			if tc.want.Error != "" && got.Message != "" {
				tc.want.Message = got.Message // for people; its presence is enough
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

func TestElicitationOutcomeReportsWhatTheFunctionReturned(t *testing.T) {
	type actionResult struct {
		Action  string
		Content any
	}
	type bothResult struct {
		Action, Status string
		Content        json.RawMessage
	}
	for _, tc := range []struct {
		name string
		res  any
		want probe.Outcome
		says string // in an error's message: what the function returned
	}{
		{"accepted content as written", reference.ElicitationResponse{Action: "accept", Content: json.RawMessage(`{"age":36.0}`)},
			probe.Outcome{Outcome: "accepted", Content: json.RawMessage(`{"age":36.0}`)}, ""},
		{"an accepted URL", actionResult{Action: "accept"}, probe.Outcome{Outcome: "accepted"}, ""},
		{"null content is none", actionResult{Action: "accept", Content: json.RawMessage("null")}, probe.Outcome{Outcome: "accepted"}, ""},
		{"a status instead of an action", Result{Status: "declined"}, probe.Outcome{Outcome: "declined"}, ""},
		{"an empty action, and a status", bothResult{Status: "cancelled"}, probe.Outcome{Outcome: "cancelled"}, ""},
		{"content on a decline is shown, not hidden", actionResult{Action: "decline", Content: map[string]any{"x": 1}},
			probe.Outcome{Outcome: "declined", Content: json.RawMessage(`{"x":1}`)}, ""},
		{"content on a cancel is shown, not hidden", bothResult{Action: "cancel", Content: json.RawMessage(`{"age":36}`)},
			probe.Outcome{Outcome: "cancelled", Content: json.RawMessage(`{"age":36}`)}, ""},
		{"a custom action, named", actionResult{Action: "_defer", Content: map[string]any{"x": 1}},
			probe.Outcome{Outcome: "error", Error: "invalid_response"}, `the action "_defer"`},
		{"a custom status, named", Result{Status: "maybe"}, probe.Outcome{Outcome: "error", Error: "invalid_response"}, `the status "maybe"`},
		{"no action at all", bothResult{}, probe.Outcome{Outcome: "error", Error: "internal"}, "its Action is empty; its Status is empty"},
		{"content that is no JSON", actionResult{Action: "accept", Content: json.RawMessage(`{"age":`)},
			probe.Outcome{Outcome: "error", Error: "internal"}, `"{\"age\":" is not JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := userErrors.elicitationOutcome(tc.res, nil)
			tc.want.Acpconform = probe.Version
			if tc.want.Error != "" {
				if !strings.Contains(got.Message, tc.says) {
					t.Errorf("message %q does not say %q", got.Message, tc.says)
				}
				tc.want.Message = got.Message
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}
