package relay

// Direction is the way a frame crosses a relay.
type Direction int

// The two ways.
const (
	ToAgent  Direction = iota // from the client to the agent
	ToClient                  // from the agent to the client
)

func (d Direction) String() string {
	if d == ToAgent {
		return "to the agent"
	}
	return "to the client"
}

// Tamper makes a relay wrong on purpose, so that the relay catalogue can
// be shown to catch each defect (package mutants). The zero value, and a
// nil *Tamper, relay faithfully. No command line sets it.
type Tamper struct {
	// Frame sees every frame crossing the relay, one direction at a time,
	// in order, and returns what to pass on instead: nothing drops the
	// frame, two frames split it. Frames it holds back it may pass on
	// later, with another frame: its state is its own, and the relay
	// calls it from one goroutine per direction.
	Frame func(dir Direction, frame []byte) [][]byte
	// KeepOpen leaves the other side open when one side goes away, until
	// the relay itself is stopped.
	KeepOpen bool
}

// frames applies the tamper to one frame: what goes on in dir.
func (t *Tamper) frames(dir Direction, frame []byte) [][]byte {
	if t == nil || t.Frame == nil {
		return [][]byte{frame}
	}
	return t.Frame(dir, frame)
}

// keepOpen reports whether the relay leaves the other side open.
func (t *Tamper) keepOpen() bool { return t != nil && t.KeepOpen }
