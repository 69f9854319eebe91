package peer

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/acpconform/acpconform/mocks/wire"
)

// Bounds on the violations a peer keeps.
const (
	// MaxViolations is how many violations are listed; the rest are counted.
	MaxViolations = 1000
	// MaxViolationBytes bounds one violation's text; a longer one is cut.
	MaxViolationBytes = 2 << 10
)

// ErrBroken matches the error of a CallStrict that stopped waiting because
// the subject broke the protocol.
var ErrBroken = errors.New("the subject broke the protocol")

// Violate records something the other side did wrong.
func (p *Peer) Violate(format string, args ...any) {
	v := cut(fmt.Sprintf(format, args...), MaxViolationBytes)
	p.mu.Lock()
	if len(p.violations) < MaxViolations {
		p.violations = append(p.violations, v)
	} else {
		p.unlisted++
	}
	p.mu.Unlock()
	p.conn.Transcript().Note("violation: " + v)
}

// breakProtocol records a frame-level protocol violation: the subject
// wrote what is not a JSON-RPC message, or a message no peer could take.
// The first one is the connection's failure, and closes Broken.
func (p *Peer) breakProtocol(v string) {
	p.Violate("%s", v)
	p.mu.Lock()
	first := p.failure == ""
	if first {
		p.failure = cut(v, MaxViolationBytes)
	}
	p.mu.Unlock()
	if first {
		close(p.broken)
	}
}

// Violations returns what was recorded so far.
func (p *Peer) Violations() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]string(nil), p.violations...)
	if p.unlisted > 0 {
		out = append(out, fmt.Sprintf("... and %d more violations", p.unlisted))
	}
	return out
}

// Broken is closed at the first frame-level protocol violation: a line
// that is not JSON, a batch, a message that is none of request,
// notification and response, a response to an id never sent or to
// "id": null, a frame over the size limit, a binary frame, a flood.
// Failure says which.
func (p *Peer) Broken() <-chan struct{} { return p.broken }

// Failure says what went wrong with the connection: the first frame-level
// protocol violation, if there was one, and, once the connection has
// ended, why it ended; "" while neither happened.
func (p *Peer) Failure() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.failure != "" && p.ended != "":
		return p.failure + "; then the connection ended: " + p.ended
	case p.failure != "":
		return p.failure
	case p.ended != "":
		return "the connection ended: " + p.ended
	}
	return ""
}

// endReason says why the connection ended; call it once Done is closed.
func (p *Peer) endReason() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended
}

// CallError is why a call ended without an answer, or a wait without its
// event. Its message is what was waited for, why it ended and what the
// subject did wrong so far:
//
//	initialize: no answer within 30s (context deadline exceeded); what the subject did wrong so far: the subject wrote a line that is not JSON (...): "hello"
//
// It matches the cause: context.DeadlineExceeded or context.Canceled,
// wire.ErrClosed, or ErrBroken.
type CallError struct {
	What   string   // the request's method, or "waiting for" what was awaited
	Reason string   // why the call ended, in words
	SoFar  []string // the first violations recorded before it ended, at most three
	More   int      // how many more there were
	cause  error
}

// callViolations is how many violations a CallError lists.
const callViolations = 3

func (e *CallError) Error() string {
	s := e.What + ": " + e.Reason
	if len(e.SoFar) > 0 {
		s += "; what the subject did wrong so far: " + strings.Join(e.SoFar, "; ")
		if e.More > 0 {
			s += fmt.Sprintf("; and %d more", e.More)
		}
	}
	return s
}

// Unwrap returns the cause.
func (e *CallError) Unwrap() error { return e.cause }

// callError builds a CallError with the violations so far.
func (p *Peer) callError(what, reason string, cause error) *CallError {
	e := &CallError{What: what, Reason: reason, cause: cause}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := min(len(p.violations), callViolations)
	e.SoFar = append([]string(nil), p.violations[:n]...)
	e.More = len(p.violations) - n + p.unlisted
	return e
}

// brokenError is the error of a strict wait the subject broke.
func (p *Peer) brokenError(what, when string) *CallError {
	p.mu.Lock()
	defer p.mu.Unlock()
	return &CallError{What: what, Reason: "the subject broke the protocol " + when + ": " + p.failure, cause: ErrBroken}
}

// isClosed reports whether ch, which may be nil, is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return ch != nil
	default:
		return false
	}
}

// diagnose says in words what is wrong with a frame decode refused.
func (p *Peer) diagnose(err error, frame []byte) string { return diagnosis(p.unit, err, frame) }

// diagnosis says in words what is wrong with a frame decode refused, a
// unit ("line" or "text frame") of the transport.
func diagnosis(unit string, err error, frame []byte) string {
	var fe *frameError
	if !errors.As(err, &fe) {
		return fmt.Sprintf("the subject sent a %s that is not JSON-RPC (%v): %s", unit, err, Quote(frame))
	}
	wrote := "wrote a line"
	if unit != "line" {
		wrote = "sent a " + unit
	}
	switch fe.kind {
	case notJSON:
		return fmt.Sprintf("the subject %s that is not JSON (%s): %s", wrote, fe.detail, Quote(frame))
	case tooDeep:
		return fmt.Sprintf("the subject %s nested more than %d levels deep, which acpconform does not read: %s", wrote, maxDepth, Quote(frame))
	case batch:
		return fmt.Sprintf("the subject sent a JSON-RPC batch of %s, which ACP does not use: %s", fe.detail, Quote(frame))
	case notJSONRPC:
		return fmt.Sprintf("the subject sent a message that is not JSON-RPC (%s): %s", fe.detail, Quote(frame))
	}
	return fmt.Sprintf(`the subject sent a message that is neither a request, a notification nor a response (it has no "method", "id", "result" or "error"): %s`, Quote(frame))
}

// refusal says in words why the connection refused a frame, from the
// error its reading ended with; "" when it refused none.
func refusal(err error) string {
	var (
		tooBig *wire.FrameTooLargeError
		binary *wire.BinaryFrameError
	)
	switch {
	case errors.As(err, &tooBig):
		if tooBig.Unit == "message" {
			return fmt.Sprintf("the subject sent a message of more than %s, the size limit of one message, so acpconform closed the connection with status 1009 (raise the limit with --max-frame)",
				wire.Bytes(tooBig.Limit))
		}
		return fmt.Sprintf("the subject wrote a line of more than %s, the size limit of one message, so acpconform closed the connection (raise the limit with --max-frame); the line began %s...",
			wire.Bytes(tooBig.Limit), Quote(tooBig.Head))
	case errors.As(err, &binary):
		return fmt.Sprintf("the subject sent a binary WebSocket frame of %d bytes, where ACP messages are text frames, so acpconform closed the connection with status 1003: %s",
			binary.Size, Quote(binary.Head))
	}
	return ""
}

// cut bounds s to n bytes, on a rune boundary, saying how long it was.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s... (%d bytes in all)", s[:i], len(s))
}
