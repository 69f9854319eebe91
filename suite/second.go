package suite

import (
	"fmt"
	"sync"

	"github.com/acpconform/acpconform/mocks/wire"
)

// One connection per check.
//
// What the harness serves a subject for one check, the WebSocket at {url}
// or the bridge's socket behind {agent}, takes one connection: the check's.
// The harness cannot tell a health check from the connection that matters,
// nor a reconnection from a second peer, so a first connection that closed
// without a word is still the check's, and every later one is refused. A
// second connection is said at once: the harness's ends of the check's
// connections are refused with that diagnosis, so that every wait of the
// check ends with it instead of at its deadline, and Preflight gives it as
// the reason the subject could not run.

// oneConnection is the reason a second connection is refused, sent to the
// subject when its transport can carry one (a WebSocket's close frame:
// at most 123 bytes).
const oneConnection = "acpconform serves one connection per check"

// connectedAgain is the diagnosis of a subject of role that connected a
// second time by way of placeholder ({url} or {agent}).
func connectedAgain(role Role, placeholder string) string {
	how := "to " + placeholder
	if placeholder == AgentPlaceholder {
		how = "through " + placeholder
	}
	return fmt.Sprintf("the %s connected a second time %s; %s", role, how, oneConnection)
}

// second watches for a subject's second connection within one check, and
// refuses the harness's ends of the check's connections when it comes.
type second struct {
	what string          // the diagnosis
	came <-chan struct{} // closed when the second connection came
	stop chan struct{}   // closed by end
	done chan struct{}   // closed when the watch has ended

	mu      sync.Mutex
	ends    []wire.Conn // the harness's ends of the check's connections
	refused bool        // came, and ends were refused
}

// watchSecond watches came, which closes at the subject's second
// connection, until end; ends are the harness's ends of the check's
// connections so far.
func watchSecond(what string, came <-chan struct{}, ends ...wire.Conn) *second {
	s := &second{what: what, came: came, stop: make(chan struct{}), done: make(chan struct{}), ends: ends}
	go s.watch()
	return s
}

func (s *second) watch() {
	defer close(s.done)
	select {
	case <-s.came:
	case <-s.stop:
		return
	}
	s.mu.Lock()
	ends := s.ends
	s.refused = true
	s.mu.Unlock()
	for _, c := range ends {
		refuse(c, s.what)
	}
}

// add is c, an end opened later (a relay's upstream), watched as the
// others: refused at once when the second connection has come.
func (s *second) add(c wire.Conn) wire.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ends = append(s.ends, c)
	if s.refused {
		refuse(c, s.what)
	}
	return c
}

// end stops the watch and waits for it: the check's connections are
// closing anyway.
func (s *second) end() {
	close(s.stop)
	<-s.done
}

// diagnosis is the diagnosis once the second connection has come; ""
// before.
func (s *second) diagnosis() string {
	select {
	case <-s.came:
		return s.what
	default:
		return ""
	}
}

// refuse closes c for reason, in words its waits report when it can.
func refuse(c wire.Conn, reason string) {
	if r, ok := c.(interface{ Refuse(reason string) }); ok {
		r.Refuse(reason)
		return
	}
	c.Close()
}
