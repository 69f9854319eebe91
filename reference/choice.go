package reference

import "fmt"

// Choice is one option of a typed-choice question: the application value it
// stands for, the label the user sees, an optional description and whether it
// is the default.
//
// Value never goes on the wire; the client sees an opaque token instead, so T
// need not be serializable, comparable or printable.
type Choice[T any] struct {
	Value       T
	Label       string
	Description string // optional; sent as option metadata (CONTRACT SCH-5)
	Default     bool   // at most one choice of a question may be the default
}

// Status names the outcome of a choice. The zero Status is not an outcome.
type Status string

// The three outcomes of a choice, with the status strings of the contract.
const (
	StatusAccepted  Status = "accepted"
	StatusDeclined  Status = "declined"
	StatusCancelled Status = "cancelled"
)

// Valid reports whether s is one of the three outcomes.
func (s Status) Valid() bool {
	return s == StatusAccepted || s == StatusDeclined || s == StatusCancelled
}

// Result is the outcome of [AskChoice]: accepted with a value, declined or
// cancelled. Switch on [Result.Status].
//
// The zero Result is not an outcome: its Status is "" and [AskChoice] never
// returns it without an error. Build results with [Accept], [Decline] and
// [Cancel].
type Result[T any] struct {
	status Status
	value  T
}

// Accept returns the accepted outcome carrying value.
func Accept[T any](value T) Result[T] { return Result[T]{status: StatusAccepted, value: value} }

// Decline returns the outcome of a user who explicitly declined to answer.
func Decline[T any]() Result[T] { return Result[T]{status: StatusDeclined} }

// Cancel returns the outcome of an interaction cancelled without an answer.
func Cancel[T any]() Result[T] { return Result[T]{status: StatusCancelled} }

// Status reports the outcome; "" for the zero Result.
func (r Result[T]) Status() Status { return r.status }

// Value returns the chosen value. It is the zero T unless the Status is
// [StatusAccepted]; when [AskChoice] returns it, it is the offered choice's own
// value (for a pointer, the very same pointer).
func (r Result[T]) Value() T { return r.value }

// String returns the status string, with the value's type when accepted; the
// value itself is not printed, as T may not be printable.
func (r Result[T]) String() string {
	switch r.status {
	case StatusAccepted:
		return fmt.Sprintf("accepted(%T)", r.value)
	case "":
		return "invalid (zero Result)"
	default:
		return string(r.status)
	}
}
