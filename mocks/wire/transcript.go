package wire

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Direction says which way a frame went, seen from the connection's owner.
type Direction string

// The two directions.
const (
	Received Direction = "<-" // from the peer
	Sent     Direction = "->" // to the peer
)

// Entry is one frame, or one event such as a close, in a transcript.
type Entry struct {
	Dir  Direction
	At   time.Duration // since the transcript started
	Data []byte        // the frame without framing; nil for an event
	Note string        // "raw" for WriteRaw, the reason for refused frames, or the event
}

// DefaultTranscriptEntries is how many entries a transcript keeps: the most
// recent ones, which say most about a failure.
const DefaultTranscriptEntries = 2000

// maxEntryData bounds the bytes kept of one frame.
const maxEntryData = 16 << 10

// Transcript records the frames of one or more connections, safe for
// concurrent use. It keeps the last DefaultTranscriptEntries entries and
// counts the ones it dropped.
type Transcript struct {
	mu      sync.Mutex
	start   time.Time
	entries []Entry
	next    int // ring position once full
	dropped int
}

// NewTranscript starts an empty transcript; times count from now.
func NewTranscript() *Transcript { return &Transcript{start: time.Now()} }

func (t *Transcript) add(dir Direction, data []byte, note string) {
	t.keep(dir, preview(data), note)
}

// keep records data without copying it: the caller hands it over and never
// changes it again.
func (t *Transcript) keep(dir Direction, data []byte, note string) {
	if len(data) > maxEntryData {
		data = preview(data)
	}
	e := Entry{Dir: dir, Data: data, Note: note}
	t.mu.Lock()
	defer t.mu.Unlock()
	e.At = time.Since(t.start)
	if len(t.entries) < DefaultTranscriptEntries {
		t.entries = append(t.entries, e)
		return
	}
	t.entries[t.next] = e
	t.next = (t.next + 1) % len(t.entries)
	t.dropped++
}

func (t *Transcript) note(dir Direction, event string) { t.add(dir, nil, event) }

// Note records an event that is not a frame, such as a scripted delay.
func (t *Transcript) Note(event string) { t.add("--", nil, event) }

// Entries returns the kept entries, oldest first.
func (t *Transcript) Entries() []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append(append([]Entry(nil), t.entries[t.next:]...), t.entries[:t.next]...)
}

// String renders the transcript, a line an entry:
//
//	+0.0012s -> {"jsonrpc":"2.0",...}
//	+0.0040s <- {"jsonrpc":"2.0",...}  (raw)
func (t *Transcript) String() string {
	var b strings.Builder
	t.WriteTo(&b)
	return b.String()
}

// WriteTo writes the rendering of String to w.
func (t *Transcript) WriteTo(w io.Writer) (int64, error) {
	t.mu.Lock()
	dropped := t.dropped
	t.mu.Unlock()
	var b strings.Builder
	if dropped > 0 {
		fmt.Fprintf(&b, "(%d earlier entries dropped)\n", dropped)
	}
	for _, e := range t.Entries() {
		fmt.Fprintf(&b, "+%.4fs %s", e.At.Seconds(), e.Dir)
		if e.Data != nil {
			fmt.Fprintf(&b, " %s", e.Data)
		}
		if e.Note != "" {
			fmt.Fprintf(&b, "  (%s)", e.Note)
		}
		b.WriteByte('\n')
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// preview copies at most maxEntryData bytes of data, marking a cut.
func preview(data []byte) []byte {
	if data == nil {
		return nil
	}
	if len(data) <= maxEntryData {
		return append([]byte{}, data...)
	}
	return append(append([]byte{}, data[:maxEntryData]...), fmt.Sprintf("... [%d bytes in all]", len(data))...)
}
