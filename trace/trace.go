// Package trace records an ACP session as it passes between a client and
// its agent over stdio, and reads the record back (docs/traces.md). A
// trace is a file of JSON lines: a header, then, in the order they
// happened, each message with the side that sent it, the time since the
// recording began and its exact bytes; the agent's stderr as it came; and
// the end of each side. Values named as secrets never reach the file:
// each is replaced by a symbolic handle the header lists.
//
// The file is written a whole line at a time with one write to a file
// opened for appending, so a recorder that crashes loses at most the line
// it was writing. A message is recorded just before it is passed on, so
// the trace's order is that of cause and effect.
package trace

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
)

// Version is the trace format's version, the header's acpconformTrace.
const Version = 1

//go:embed trace.json
var schema []byte

// Schema is the JSON Schema (draft 2020-12) of a trace's lines, what
// `acpconform schema trace` prints.
func Schema() []byte { return slices.Clone(schema) }

// Side is one end of the session.
type Side string

const (
	Client Side = "client"
	Agent  Side = "agent"
)

// Kinds of event.
const (
	KindMessage = "message"
	KindStderr  = "stderr"
	KindEnd     = "end"
)

// Header is a trace's first line.
type Header struct {
	Trace    int      `json:"acpconformTrace"` // Version
	Recorder string   `json:"recorder"`        // the program that wrote it, such as "acpconform v1.4.0"
	Command  []string `json:"command"`         // the agent's command, secrets replaced
	Began    string   `json:"began"`           // the wall-clock time the recording began, RFC 3339
	Secrets  []Secret `json:"secrets"`         // the handles standing for secrets in what follows
}

// Secret is a handle that stands for a secret's value wherever it was.
type Secret struct {
	Handle string `json:"handle"` // as it appears in the trace: ${secret:NAME}
	From   string `json:"from"`   // where the value came from: "env NAME" or "pattern N"
}

// Event is each line after the header: a message, a piece of the agent's
// stderr, or the end of a side.
type Event struct {
	T    float64 `json:"t"`    // seconds since the recording began, on a monotonic clock
	Kind string  `json:"kind"` // KindMessage, KindStderr or KindEnd
	// A message: the side that sent it, and its bytes without the
	// newline that ended its line, as text (Frame) or, when they are not
	// UTF-8, in base64 (FrameBase64). Partial: the side ended before the
	// line's newline.
	From        Side   `json:"from,omitempty"`
	Frame       string `json:"frame,omitempty"`
	FrameBase64 string `json:"frameBase64,omitempty"`
	Partial     bool   `json:"partial,omitempty"`
	// Stderr: what the agent wrote to its stderr, as it came.
	Text string `json:"text,omitempty"`
	// End: the side that ended and how.
	Side Side   `json:"side,omitempty"`
	Why  string `json:"why,omitempty"`
}

// Bytes is a message's exact bytes as recorded (secrets replaced).
func (e Event) Bytes() []byte {
	if e.FrameBase64 != "" {
		b, _ := base64.StdEncoding.DecodeString(e.FrameBase64)
		return b
	}
	return []byte(e.Frame)
}

// Writer writes a trace. Its methods are safe for concurrent use; after a
// write fails they write nothing more, and Err says why.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	began  time.Time
	redact *Redactor
	err    error
}

// Create creates the trace file at path (readable by its owner only: it
// holds a session's content) and writes its header.
func Create(path string, h Header, r *Redactor) (*Writer, io.Closer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	w, err := NewWriter(f, h, r)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, f, nil
}

// NewWriter writes h to w and returns the writer of what follows. It
// fills in the header's version, its secrets from r, and the time the
// recording began, and replaces the secrets in its command.
func NewWriter(w io.Writer, h Header, r *Redactor) (*Writer, error) {
	if r == nil {
		r = &Redactor{}
	}
	began := time.Now()
	h.Trace = Version
	h.Began = began.UTC().Format(time.RFC3339Nano)
	h.Secrets = r.Secrets()
	command := make([]string, len(h.Command))
	for i, arg := range h.Command {
		command[i] = string(r.Redact([]byte(arg)))
	}
	h.Command = command
	tw := &Writer{w: w, began: began, redact: r}
	tw.line(h)
	return tw, tw.Err()
}

// Message records a message from side: line is its bytes without the
// newline that ended it; partial says the side ended before one came.
func (w *Writer) Message(from Side, line []byte, partial bool) {
	e := Event{Kind: KindMessage, From: from, Partial: partial}
	if line = w.redact.Redact(line); utf8.Valid(line) {
		e.Frame = string(line)
	} else {
		e.FrameBase64 = base64.StdEncoding.EncodeToString(line)
	}
	w.event(e)
}

// Stderr records what the agent wrote to its stderr.
func (w *Writer) Stderr(b []byte) {
	w.event(Event{Kind: KindStderr, Text: string(w.redact.Redact(b))})
}

// End records that side ended, and how.
func (w *Writer) End(side Side, why string) {
	w.event(Event{Kind: KindEnd, Side: side, Why: string(w.redact.Redact([]byte(why)))})
}

// Err is why a write failed, if one did.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *Writer) event(e Event) {
	// Microseconds: the clock's resolution in a trace, and short lines.
	e.T = float64(time.Since(w.began).Microseconds()) / 1e6
	w.line(e)
}

// line writes v and a newline in one write, so that a crash cuts no line
// written before it. Messages are written in the order this is called.
func (w *Writer) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the types above always marshal
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		w.err = fmt.Errorf("writing the trace: %w", err)
	}
}
