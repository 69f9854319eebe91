// Package probe defines the probe contracts through which acpconform observes
// an implementation under test (docs/probe.md): the probe request an agent
// adapter runs as its ask_choice, the outcome it reports back, and the
// scripted-user instruction a client adapter follows, with the JSON Schemas
// of all three ([Schema], [Validate]).
//
// These types are acpconform's public interface to implementers. They are
// versioned by [Version] and change only compatibly: new optional fields and
// new values, never a changed meaning.
package probe

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Version is the probe contract version, sent as "acpconform" in every
// request and outcome.
const Version = 1

// OpAskChoice is the one operation of probe requests so far.
const OpAskChoice = "ask_choice"

// Request is the text of the prompt that asks an agent adapter to run its
// ask_choice (PROBE.md §1, step 3).
type Request struct {
	Acpconform int       `json:"acpconform"`
	Op         string    `json:"op"`
	Question   string    `json:"question"`
	Choices    []Choice  `json:"choices"`
	Fallback   *Fallback `json:"fallback,omitempty"` // nil: no fallback
	// FallbackDelayMs makes the fallback wait this long, or until its context
	// ends, before it answers.
	FallbackDelayMs int `json:"fallbackDelayMs,omitempty"`
}

// Choice is one offered choice. Two values are the same value when they are
// equal as JSON (see [SameValue]).
type Choice struct {
	Value       json.RawMessage `json:"value"`
	Label       string          `json:"label"`
	Description string          `json:"description,omitempty"`
	Default     bool            `json:"default,omitempty"`
}

// Fallback kinds.
const (
	FallbackAccepted  = "accepted"  // returns Accepted(Value)
	FallbackDeclined  = "declined"  // returns Declined
	FallbackCancelled = "cancelled" // returns Cancelled
	FallbackError     = "error"     // fails with Message
	FallbackPlain     = "plain"     // the deprecated plain-value fallback, returning Value
)

// Fallback is the fallback an adapter passes to its ask_choice.
type Fallback struct {
	Kind    string          `json:"kind"`
	Value   json.RawMessage `json:"value,omitempty"`
	Message string          `json:"message,omitempty"`
}

// Outcome kinds.
const (
	OutcomeAccepted  = "accepted"
	OutcomeDeclined  = "declined"
	OutcomeCancelled = "cancelled"
	OutcomeError     = "error"
)

// Error kinds of an error outcome.
const (
	ErrorInvalidArgument = "invalid_argument"
	ErrorUnsupported     = "unsupported"
	ErrorInvalidResponse = "invalid_response"
	ErrorInvalidFallback = "invalid_fallback"
	ErrorFallback        = "fallback_error"
	ErrorRequest         = "request_error" // with Code, Message and Data of the JSON-RPC error
	ErrorConnection      = "connection"
	ErrorInternal        = "internal" // anything else; a defect of the adapter
)

// WarningPlainValue is listed in Warnings each time the deprecated
// plain-value fallback warned.
const WarningPlainValue = "plain-value-fallback"

// Outcome is what an agent adapter reports, as the text of one
// agent_message_chunk, when its ask_choice returns (PROBE.md §1, step 5).
type Outcome struct {
	Acpconform int             `json:"acpconform"`
	Outcome    string          `json:"outcome"`
	Index      *int            `json:"index,omitempty"` // accepted: the offered choice whose value came back
	Value      json.RawMessage `json:"value,omitempty"` // accepted: that value
	Error      string          `json:"error,omitempty"`
	Code       *int            `json:"code,omitempty"`
	Message    string          `json:"message,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	Warnings   []string        `json:"warnings,omitempty"`
}

// ParseRequest reads a probe request, reporting why text is not one.
func ParseRequest(text string) (Request, error) {
	var r Request
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return r, fmt.Errorf("not an acpconform probe request: %w", err)
	}
	if r.Acpconform != Version {
		return r, fmt.Errorf("not an acpconform probe request: acpconform is %d, want %d", r.Acpconform, Version)
	}
	if r.Op != OpAskChoice {
		return r, fmt.Errorf("unknown probe op %q (want %q)", r.Op, OpAskChoice)
	}
	return r, nil
}

// ParseOutcome reads an outcome report, reporting why text is not one.
func ParseOutcome(text string) (Outcome, error) {
	var o Outcome
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&o); err != nil {
		return o, fmt.Errorf("not an acpconform outcome: %w", err)
	}
	if o.Acpconform != Version {
		return o, fmt.Errorf("not an acpconform outcome: acpconform is %d, want %d", o.Acpconform, Version)
	}
	switch o.Outcome {
	case OutcomeAccepted, OutcomeDeclined, OutcomeCancelled, OutcomeError:
	default:
		return o, fmt.Errorf("unknown outcome %q", o.Outcome)
	}
	return o, nil
}

// UserMetaKey is the request _meta key of the scripted-user instruction
// (PROBE.md §2).
const UserMetaKey = "acpconform/user"

// PickDefault in [User.Pick] picks the choice the schema marks as default.
const PickDefault = "default"

// Actions of a scripted user.
const (
	ActionAccept  = "accept"  // accepts the option Pick names
	ActionDecline = "decline" // declines, without content
	ActionCancel  = "cancel"  // cancels, without content
)

// User is the scripted-user instruction an agent attaches to an
// elicitation/create request for a client adapter in test mode.
type User struct {
	Action string `json:"action"`         // ActionAccept, ActionDecline or ActionCancel
	Pick   any    `json:"pick,omitempty"` // accept only: an index (number) or PickDefault
}
