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

// DefaultTranscriptEntries is how many entries a transcript keeps at most:
// the most recent ones, which say most about a failure.
const DefaultTranscriptEntries = 2000

// maxEntryData bounds the bytes kept of one frame.
const maxEntryData = 16 << 10

// entryOverhead is what an entry costs besides its data and note.
const entryOverhead = 64

// Transcript records the frames of one or more connections, safe for
// concurrent use. It keeps the most recent entries, at most
// DefaultTranscriptEntries and a quarter of its connection's [Budget] in
// bytes, and counts the ones it dropped.
type Transcript struct {
	mu      sync.Mutex
	start   time.Time
	budget  *Budget // where the kept bytes are counted; nil until a connection adopts it
	limit   int     // bytes the entries may hold
	entries []Entry // a ring: the kept ones are n from head on, oldest first
	head, n int
	bytes   int // held by the kept entries
	dropped int
	tap     func(Entry)
}

// Tap hands f the entries kept so far (what came before the tap, such as
// a peer's first message, as kept), then every entry from now on, whole
// (a frame's data uncut), in the transcript's order, as it is recorded: f
// must not keep the data, nor block. acpconform's --traces writes a
// check's connections with it.
func (t *Transcript) Tap(f func(Entry)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.n {
		f(t.entries[(t.head+i)%len(t.entries)])
	}
	t.tap = f
}

// NewTranscript starts an empty transcript; times count from now. The
// first connection given it in Options.Transcript counts its bytes in that
// connection's budget.
func NewTranscript() *Transcript {
	return &Transcript{start: time.Now(), limit: DefaultMaxHeld / 4}
}

// adopt counts t's bytes in b, unless t already counts them elsewhere.
func (t *Transcript) adopt(b *Budget) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.budget != nil {
		return
	}
	t.budget, t.limit = b, b.Max()/4
	for !b.Hold(t.bytes) && t.drop() {
	}
}

func (t *Transcript) add(dir Direction, data []byte, note string) {
	t.record(dir, data, preview(data), note)
}

// keep records data without copying it: the caller hands it over and never
// changes it again. Older entries make room; an entry that does not fit
// even alone is kept without its data.
func (t *Transcript) keep(dir Direction, data []byte, note string) {
	kept := data
	if len(data) > maxEntryData {
		kept = preview(data)
	}
	t.record(dir, data, kept, note)
}

// record keeps kept, the part of data the transcript holds, and hands the
// whole of data to the tap.
func (t *Transcript) record(dir Direction, data, kept []byte, note string) {
	e := Entry{Dir: dir, Data: kept, Note: note}
	t.mu.Lock()
	defer t.mu.Unlock()
	e.At = time.Since(t.start)
	if t.tap != nil {
		whole := e
		whole.Data = data
		t.tap(whole)
	}
	for !t.fits(entrySize(e)) {
		if t.drop() {
			continue
		}
		if e.Data == nil {
			t.dropped++
			return
		}
		e.Note = strings.TrimSpace(fmt.Sprintf("%s [%d bytes not kept]", e.Note, len(e.Data)))
		e.Data = nil
	}
	if t.n == len(t.entries) { // full, and below DefaultTranscriptEntries: grow
		if t.head > 0 { // unwrap first
			t.entries = append(t.entries[t.head:len(t.entries):len(t.entries)], t.entries[:t.head]...)
			t.head = 0
		}
		t.entries = append(t.entries, e)
	} else {
		i := t.head + t.n
		if i >= len(t.entries) {
			i -= len(t.entries)
		}
		t.entries[i] = e
	}
	t.n++
	t.bytes += entrySize(e)
}

// fits reports whether an entry of size bytes can be kept now, and if so
// counts it in the budget.
func (t *Transcript) fits(size int) bool {
	return t.n < DefaultTranscriptEntries && t.bytes+size <= t.limit &&
		(t.budget == nil || t.budget.Hold(size))
}

// drop forgets the oldest entry; false when there is none.
func (t *Transcript) drop() bool {
	if t.n == 0 {
		return false
	}
	size := entrySize(t.entries[t.head])
	t.entries[t.head] = Entry{}
	if t.head++; t.head == len(t.entries) {
		t.head = 0
	}
	t.n--
	t.bytes -= size
	if t.budget != nil {
		t.budget.Release(size)
	}
	t.dropped++
	return true
}

func entrySize(e Entry) int { return len(e.Data) + len(e.Note) + entryOverhead }

func (t *Transcript) note(dir Direction, event string) { t.add(dir, nil, event) }

// Closed records that one way of the connection ended, dir saying which
// side's sending ended (Sent: ours, Received: the peer's), as the
// connection itself records its end: "closed: " and why.
func (t *Transcript) Closed(dir Direction, why string) { t.note(dir, "closed: "+why) }

// Note records an event that is not a frame, such as a scripted delay.
func (t *Transcript) Note(event string) { t.add("--", nil, event) }

// Held is how many bytes the kept entries hold.
func (t *Transcript) Held() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bytes
}

// Entries returns the kept entries, oldest first.
func (t *Transcript) Entries() []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Entry, 0, t.n)
	for i := range t.n {
		out = append(out, t.entries[(t.head+i)%len(t.entries)])
	}
	return out
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
