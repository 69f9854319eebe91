package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
)

// FromScript configures an agent as an agent script says.
func FromScript(s *script.Script) *Agent {
	a := New(Config{Timeout: s.Wait()})
	a.Append(s.Steps...)
	return a
}

// Turns counts the prompt turns a script plays: one per endTurn, and one for
// steps after the last endTurn.
func Turns(s *script.Script) int {
	n, open := 0, false
	for _, st := range s.Steps {
		if st.EndTurn != "" {
			n, open = n+1, false
		} else {
			open = true
		}
	}
	if open {
		n++
	}
	return n
}

// Run serves a client over conn as the script says: it waits for each of
// the script's prompt turns to be played, then for the client to close the
// connection, each wait bounded by the script's timeout. It returns nil when
// the client did nothing wrong, otherwise an error listing every violation.
func Run(ctx context.Context, s *script.Script, conn wire.Conn) error {
	a := FromScript(s)
	a.Connect(conn)
	defer a.Close()
	where := s.File
	if where == "" {
		where = s.Name
	}
	var errs []error
	for turn := 1; turn <= Turns(s); turn++ {
		wait, cancel := peer.WithBound(ctx, s.Wait()*time.Duration(1+len(s.Steps)))
		err := a.WaitTurns(wait, turn)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			break
		}
	}
	if len(errs) == 0 {
		wait, cancel := peer.WithBound(ctx, s.Wait())
		select { // late answers, a second answer: count what comes before the client leaves
		case <-a.Done():
		case <-wait.Done():
		}
		cancel()
	}
	a.Close() // the turn's goroutines record their last violations before they end
	for _, v := range append(a.Violations(), a.Unmet()...) {
		errs = append(errs, errors.New(v))
	}
	return errors.Join(errs...)
}
