// Package probe defines the probe contracts through which acpconform observes
// an implementation under test (docs/probe.md): the probe request an agent
// adapter runs as its ask_choice, the outcome it reports back, and the
// scripted-user instruction a client adapter follows, with the JSON Schemas
// of all three ([Schema]; package probe/schema checks documents against
// them). An agent built on it links no JSON Schema validator.
//
// These types are acpconform's public interface to implementers. They are
// versioned by [Version] and change only compatibly: new optional fields and
// new values, never a changed meaning.
package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/internal/jsonscan"
)

// Version is the probe contract version, sent as "acpconform" in every
// request and outcome.
const Version = 1

// Revision counts the compatible additions to version 1 (docs/probe.md §4):
// revision 2 adds the create_elicitation op, its outcome's content, and
// the scripted user's content and wait for forms of every shape, URL mode
// and cancelled requests; revision 3 adds the error kind not_offered, with
// which an adapter says it does not offer create_elicitation.
const Revision = 3

// The operations of probe requests.
const (
	OpAskChoice = "ask_choice"
	// OpCreateElicitation runs the low-level create_elicitation (revision
	// 2): a form of any shape, or a URL elicitation.
	OpCreateElicitation = "create_elicitation"
)

// Request is the text of the prompt that asks an agent adapter to run its
// ask_choice (docs/probe.md §1.3). It marshals nil Choices as [].
type Request struct {
	Acpconform int       `json:"acpconform"`
	Op         string    `json:"op"`
	Question   string    `json:"question"`
	Choices    []Choice  `json:"choices"`
	Fallback   *Fallback `json:"fallback,omitempty"` // nil: no fallback
	// FallbackDelayMs makes the fallback wait this long, or until its context
	// ends, before it answers.
	FallbackDelayMs int `json:"fallbackDelayMs,omitempty"`

	// create_elicitation only: the mode ("form" or "url"), the message, and
	// the form's requestedSchema or the URL and its elicitationId.
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message,omitempty"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
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

// Fallback is the fallback an adapter passes to its ask_choice. It
// marshals the Message of an error fallback even when it is empty.
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
	// ErrorNotOffered answers a request of op create_elicitation from an
	// adapter that does not offer the op (revision 3, docs/probe.md §1.9):
	// the harness reports the op's checks "not offered".
	ErrorNotOffered = "not_offered"
)

// NotOffered reports whether o says the adapter does not offer the op it
// was asked to run: an error outcome of kind not_offered.
func (o Outcome) NotOffered() bool {
	return o.Outcome == OutcomeError && o.Error == ErrorNotOffered
}

// WarningPlainValue is listed in Warnings each time the deprecated
// plain-value fallback warned.
const WarningPlainValue = "plain-value-fallback"

// Outcome is what an agent adapter reports, as the text of one
// agent_message_chunk, when its ask_choice returns (docs/probe.md §1.5). It
// marshals the Message of an error outcome even when it is empty: an error
// always has one.
type Outcome struct {
	Acpconform int             `json:"acpconform"`
	Outcome    string          `json:"outcome"`
	Index      *int            `json:"index,omitempty"` // accepted: the offered choice whose value came back
	Value      json.RawMessage `json:"value,omitempty"` // accepted: that value
	// Content is what an accepted create_elicitation form answered, as
	// received; absent for a URL elicitation.
	Content  json.RawMessage `json:"content,omitempty"`
	Error    string          `json:"error,omitempty"`
	Code     *int            `json:"code,omitempty"`
	Message  string          `json:"message,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
}

// MarshalJSON writes nil Choices as [], as the harness sends them, and a
// create_elicitation request without question and choices.
func (r Request) MarshalJSON() ([]byte, error) {
	type plain Request // without this method
	if r.Op == OpCreateElicitation {
		return json.Marshal(struct {
			plain
			Question string   `json:"question,omitempty"`
			Choices  []Choice `json:"choices,omitempty"`
		}{plain: plain(r)})
	}
	if r.Choices == nil {
		r.Choices = []Choice{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON writes an error fallback's message even when it is empty.
func (f Fallback) MarshalJSON() ([]byte, error) {
	w := struct {
		Kind    string          `json:"kind"`
		Value   json.RawMessage `json:"value,omitempty"`
		Message *string         `json:"message,omitempty"`
	}{Kind: f.Kind, Value: f.Value}
	if f.Message != "" || f.Kind == FallbackError {
		w.Message = &f.Message
	}
	return json.Marshal(w)
}

// MarshalJSON writes an error outcome's message even when it is empty.
func (o Outcome) MarshalJSON() ([]byte, error) {
	w := outcomeJSON{Acpconform: json.Number(fmt.Sprint(o.Acpconform)), Outcome: o.Outcome, Value: o.Value, Content: o.Content, Error: o.Error, Data: o.Data, Warnings: o.Warnings}
	if o.Index != nil {
		w.Index = json.Number(fmt.Sprint(*o.Index))
	}
	if o.Code != nil {
		w.Code = json.Number(fmt.Sprint(*o.Code))
	}
	if o.Message != "" || o.Outcome == OutcomeError {
		w.Message = &o.Message
	}
	return json.Marshal(w)
}

// outcomeJSON is an Outcome as JSON, its integers as they are written.
type outcomeJSON struct {
	Acpconform json.Number     `json:"acpconform"`
	Outcome    string          `json:"outcome"`
	Index      json.Number     `json:"index,omitempty"`
	Value      json.RawMessage `json:"value,omitempty"`
	Content    json.RawMessage `json:"content,omitempty"`
	Error      string          `json:"error,omitempty"`
	Code       json.Number     `json:"code,omitempty"`
	Message    *string         `json:"message,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	Warnings   []string        `json:"warnings,omitempty"`
}

// ParseRequest reads a probe request, reporting why text is not one: not
// JSON, not version 1, an unknown op, or, as a *[SchemaError], anything
// else the request schema does not allow. Null choices are read as none,
// an empty slice.
//
// It checks the request schema's rules in code (see checkRequest), not
// with a JSON Schema validator, so that an agent built on it starts
// without one; package probe/schema's tests hold the two to the same
// verdicts.
func ParseRequest(text string) (Request, error) {
	var r Request
	doc, err := decodeJSON(text)
	if err != nil {
		return r, fmt.Errorf("not an acpconform probe request: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return r, fmt.Errorf("not an acpconform probe request: %s is not a JSON object", show(doc))
	}
	if v, ok := obj["acpconform"]; !ok {
		return r, fmt.Errorf(`not an acpconform probe request: it has no "acpconform" member`)
	} else if !isVersion(v) {
		return r, fmt.Errorf("not an acpconform probe request: acpconform is %s, want %d", show(v), Version)
	}
	if op, ok := obj["op"].(string); ok && op != OpAskChoice && op != OpCreateElicitation {
		return r, fmt.Errorf("unknown probe op %q (want %q or %q)", op, OpAskChoice, OpCreateElicitation)
	}
	if ms := checkRequest(obj); len(ms) > 0 {
		return r, NewSchemaError(SchemaRequest, ms)
	}
	var w struct {
		Request
		Acpconform      json.Number `json:"acpconform"`
		FallbackDelayMs json.Number `json:"fallbackDelayMs"`
	}
	if err := json.Unmarshal([]byte(text), &w); err != nil {
		return r, fmt.Errorf("reading the probe request: %w", err)
	}
	r = w.Request
	r.Acpconform = Version
	if w.FallbackDelayMs != "" {
		if r.FallbackDelayMs, err = Integer(w.FallbackDelayMs); err != nil {
			return r, fmt.Errorf("reading the probe request: fallbackDelayMs %w", err)
		}
	}
	if r.Choices == nil && r.Op == OpAskChoice {
		r.Choices = []Choice{}
	}
	return r, nil
}

// decodeJSON decodes one JSON value, numbers as json.Number, and refuses
// anything after it.
func decodeJSON(text string) (any, error) {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// isVersion reports whether a decoded JSON value is the number 1.
func isVersion(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	i, err := Integer(n)
	return err == nil && i == Version
}

// IsOutcome reports whether text is meant as an outcome: one JSON object,
// white space around it allowed, with an "acpconform" member and no "op"
// member (a probe request echoed back is not an outcome), however deep it
// nests. The harness takes the first agent message of a probe's turn that
// is one as the outcome, and reads it with schema.ParseOutcome (package
// probe/schema), which refuses one nested deeper than [MaxDepth].
func IsOutcome(text string) bool {
	shape, err := jsonscan.Scan(text)
	return err == nil && shape.Object && slices.Contains(shape.Names, "acpconform") && !slices.Contains(shape.Names, "op")
}

// MaxDepth is how deep an outcome may nest, each object or array a level
// and the outcome itself the first: {"acpconform":1,"outcome":"declined"}
// nests 1 level, with "x":[[]] beside its members 3. It is the nesting
// encoding/json reads.
const MaxDepth = 10000

// UnmarshalJSON reads an outcome, integers by value ([Integer]), so that
// an index of 1.0 is 1 and one of 0.0 is 0, and members by their exact
// names, as the outcome schema names them: "Outcome" is an unknown member,
// ignored, not the outcome. Of a member named twice it reads the last. It
// does not check the outcome schema: schema.ParseOutcome (package
// probe/schema) does, says what an adapter got wrong, and reads every
// reading of a duplicate.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	var w outcomeJSON
	if err := exactjson.Unmarshal(b, &w); err != nil {
		return err
	}
	*o = Outcome{Acpconform: Version, Outcome: w.Outcome, Value: w.Value, Content: w.Content, Error: w.Error, Data: w.Data, Warnings: w.Warnings}
	if w.Message != nil {
		o.Message = *w.Message
	}
	for _, n := range []struct {
		name string
		text json.Number
		to   **int
	}{{"index", w.Index, &o.Index}, {"code", w.Code, &o.Code}} {
		if n.text == "" {
			continue
		}
		i, err := Integer(n.text)
		if err != nil {
			return fmt.Errorf("%s %w", n.name, err)
		}
		*n.to = &i
	}
	return nil
}

// UserMetaKey is the request _meta key of the scripted-user instruction
// (docs/probe.md §2).
const UserMetaKey = "acpconform/user"

// PickDefault in [User.Pick] picks the choice the schema marks as default.
const PickDefault = "default"

// Actions of a scripted user.
const (
	ActionAccept  = "accept"  // accepts: the option Pick names, the Content given, or a URL
	ActionDecline = "decline" // declines, without content
	ActionCancel  = "cancel"  // cancels, without content
	// ActionWait answers nothing until the agent cancels the request with
	// $/cancel_request, then answers it as cancelled (action cancel, or
	// JSON-RPC error -32800).
	ActionWait = "wait"
)

// User is the scripted-user instruction an agent attaches to an
// elicitation/create request for a client adapter in test mode. An accept
// of a typed-choice form names its Pick; an accept of any other form gives
// the Content to answer with, exactly; an accept of a URL elicitation names
// neither: the user consents to open the URL, which a client in test mode
// does not do.
type User struct {
	Action  string          `json:"action"`            // ActionAccept, ActionDecline, ActionCancel or ActionWait
	Pick    any             `json:"pick,omitempty"`    // accept of a typed choice: an index (number) or PickDefault
	Content json.RawMessage `json:"content,omitempty"` // accept of another form: the content, a JSON object
}

// MaxInteger bounds the integer members of probe documents (an outcome's
// index and code, a request's fallbackDelayMs): 2^53-1, the largest
// integer that every JSON parser, JavaScript's included, holds exactly.
const MaxInteger = 1<<53 - 1

// The errors of [Integer], which wraps them.
var (
	ErrNotInteger   = errors.New("not an integer")
	ErrIntegerRange = fmt.Errorf("out of range: acpconform reads integers from %d to %d", -MaxInteger, MaxInteger)
)

// Integer reads a JSON number by value, as the probe contract reads every
// integer member, and as JSON Schema's "integer" does: 0.0, 0e5 and -0
// are 0, 1.0e0 and 10e-1 are 1. It fails with [ErrNotInteger] for a number
// with a fraction (0.5) and with [ErrIntegerRange] for an integer beyond
// ±[MaxInteger], in time linear in the number's length.
func Integer(n json.Number) (int, error) {
	d, ok := decimalOf(n)
	if !ok { // an exponent beyond an int: 1e99999999999 is an integer, 1e-99999999999 is not
		_, exp, _ := strings.Cut(strings.ToLower(string(n)), "e")
		if strings.HasPrefix(exp, "-") {
			return 0, fmt.Errorf("%s is %w", elide.Head(string(n), maxShown), ErrNotInteger)
		}
		return 0, fmt.Errorf("%s is %w", elide.Head(string(n), maxShown), ErrIntegerRange)
	}
	if !d.integer() {
		return 0, fmt.Errorf("%s is %w", elide.Head(string(n), maxShown), ErrNotInteger)
	}
	i, fits := d.int64()
	if !fits || i > MaxInteger || i < -MaxInteger || int64(int(i)) != i {
		return 0, fmt.Errorf("%s is %w", elide.Head(string(n), maxShown), ErrIntegerRange)
	}
	return int(i), nil
}
