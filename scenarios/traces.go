package scenarios

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/suite"
	"github.com/acpconform/acpconform/trace"
)

// traceDir writes the connections of a run's checks as traces
// (docs/traces.md), for acpconform judge and replay: a file a connection,
// named for the role of the subject on it and numbered as they were
// opened: agent-0001.jsonl, client-0002.jsonl, ...
type traceDir struct {
	dir     string
	subject string
}

// traceFiles numbers the traces of a process, whose catalogues (one per
// subject) may share a directory.
var traceFiles atomic.Int64

// trace records conn, a connection to the subject of role, from now on.
// A trace that cannot be written fails the check that opened it.
func (t *traceDir) trace(conn wire.Conn, role suite.Role) error {
	if t == nil || role == suite.RelayRole {
		return nil
	}
	path := filepath.Join(t.dir, fmt.Sprintf("%s-%04d.jsonl", role, traceFiles.Add(1)))
	w, f, err := trace.Create(path, trace.Header{Recorder: "acpconform --traces", Command: []string{t.subject}}, nil)
	if err != nil {
		return fmt.Errorf("--traces: %w", err)
	}
	subject, harness := trace.Agent, trace.Client
	if role == suite.ClientRole {
		subject, harness = trace.Client, trace.Agent
	}
	conn.Transcript().Tap(func(e wire.Entry) {
		switch {
		case e.Data != nil && e.Dir == wire.Received:
			w.Message(subject, e.Data, false)
		case e.Data != nil && e.Dir == wire.Sent:
			w.Message(harness, e.Data, false)
		case e.Dir == wire.Sent && strings.HasPrefix(e.Note, "closed"): // our sending ended, the connection kept
			w.End(harness, e.Note)
		case e.Dir == wire.Received && strings.HasPrefix(e.Note, "closed"):
			side := subject
			if strings.Contains(e.Note, "by this side") {
				side = harness
			}
			w.End(side, e.Note)
			f.Close() // the tap runs once per entry: nothing writes after this
		}
	})
	return nil
}
