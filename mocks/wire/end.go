package wire

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/coder/websocket"
)

// FrameTooLargeError is the error of a connection that refused a message
// above its size limit. It matches ErrFrameTooLarge.
type FrameTooLargeError struct {
	Limit int    // the size limit in bytes
	Unit  string // "line" on a stream, "message" on a WebSocket
	Head  []byte // the first bytes of the message, when they were read
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("%v: a %s of more than %d bytes", ErrFrameTooLarge, e.Unit, e.Limit)
}

// Is makes the error match ErrFrameTooLarge.
func (e *FrameTooLargeError) Is(target error) bool { return target == ErrFrameTooLarge }

// BinaryFrameError is the error of a WebSocket connection that refused a
// binary frame. It matches ErrBinaryFrame.
type BinaryFrameError struct {
	Size int    // of the frame, in bytes
	Head []byte // its first bytes
}

func (e *BinaryFrameError) Error() string {
	return fmt.Sprintf("%v: %d bytes", ErrBinaryFrame, e.Size)
}

// Is makes the error match ErrBinaryFrame.
func (e *BinaryFrameError) Is(target error) bool { return target == ErrBinaryFrame }

// headBytes is how much of a refused frame its error keeps.
const headBytes = 120

func head(b []byte) []byte { return append([]byte(nil), b[:min(len(b), headBytes)]...) }

// ErrClosedHere: this side closed the connection (Close, or a write
// abandoned at its deadline). Errors that match it match ErrClosed too.
var ErrClosedHere = errors.New("wire: connection closed by this side")

type closedHereError struct{ reason string }

func (e *closedHereError) Error() string {
	if e.reason == "" {
		return ErrClosedHere.Error()
	}
	return ErrClosedHere.Error() + ": " + e.reason
}

func (e *closedHereError) Is(target error) bool {
	return target == ErrClosedHere || target == ErrClosed
}

// shutErr is why this side closed the connection, as an error.
func shutErr(shut *atomic.Pointer[closedHereError]) error {
	if here := shut.Load(); here != nil {
		return here
	}
	return &closedHereError{}
}

// closedError is a connection that ended for cause; it matches ErrClosed.
type closedError struct{ cause error }

func (e *closedError) Error() string        { return ErrClosed.Error() + ": " + e.cause.Error() }
func (e *closedError) Unwrap() error        { return e.cause }
func (e *closedError) Is(target error) bool { return target == ErrClosed }

// closedErr wraps the cause of an ended connection so that it matches ErrClosed.
func closedErr(cause error) error {
	var here *closedHereError
	switch {
	case cause == nil || cause == ErrClosed:
		return ErrClosed
	case errors.As(cause, &here), errors.Is(cause, ErrFrameTooLarge), errors.Is(cause, ErrBinaryFrame):
		return cause
	}
	return &closedError{cause}
}

// DescribeEnd says in plain words why a connection ended, given the error
// its reading ended with (Serve's, or ReadFrame's once Done is closed):
// "the subject closed it (end of file)", "acpconform closed it", "the
// subject closed the WebSocket with status 1001 (going away)", ...
func DescribeEnd(err error) string {
	var (
		here    *closedHereError
		tooBig  *FrameTooLargeError
		binary  *BinaryFrameError
		closeWS websocket.CloseError
		closed  *closedError
	)
	switch {
	case err == nil:
		return "it has not ended"
	case errors.As(err, &here):
		if here.reason == "" {
			return "acpconform closed it"
		}
		return "acpconform closed it: " + here.reason
	case errors.As(err, &tooBig):
		if tooBig.Unit == "message" {
			return "acpconform closed it with status 1009: the subject sent a message of more than " + Bytes(tooBig.Limit)
		}
		return fmt.Sprintf("acpconform closed it: the subject sent a %s of more than %s", tooBig.Unit, Bytes(tooBig.Limit))
	case errors.As(err, &binary), errors.Is(err, ErrBinaryFrame):
		return "acpconform closed it with status 1003: the subject sent a binary frame"
	case errors.As(err, &closeWS):
		s := fmt.Sprintf("the subject closed the WebSocket with status %d", int(closeWS.Code))
		if name := statusNames[closeWS.Code]; name != "" {
			s += " (" + name + ")"
		}
		if closeWS.Reason != "" {
			s += fmt.Sprintf(" and reason %q", closeWS.Reason)
		}
		return s
	case errors.Is(err, io.EOF), err == ErrClosed:
		return "the subject closed it (end of file)"
	case errors.As(err, &closed):
		return "reading failed: " + closed.cause.Error()
	}
	return "reading failed: " + err.Error()
}

// describeEnd is how the transcript notes the end: tersely.
func describeEnd(err error) string {
	var closed *closedError
	switch {
	case errors.Is(err, io.EOF):
		return "EOF"
	case errors.As(err, &closed):
		return closed.cause.Error()
	}
	return err.Error()
}

var statusNames = map[websocket.StatusCode]string{
	websocket.StatusNormalClosure:           "normal closure",
	websocket.StatusGoingAway:               "going away",
	websocket.StatusProtocolError:           "protocol error",
	websocket.StatusUnsupportedData:         "unsupported data",
	websocket.StatusNoStatusRcvd:            "no status",
	websocket.StatusAbnormalClosure:         "abnormal closure",
	websocket.StatusInvalidFramePayloadData: "invalid data",
	websocket.StatusPolicyViolation:         "policy violation",
	websocket.StatusMessageTooBig:           "message too big",
	websocket.StatusInternalError:           "internal error",
}
