package peer

import (
	"context"
	"fmt"
	"sync"

	"github.com/acpconform/acpconform/mocks/wire"
)

// State guards what a mock records from its reading goroutine and lets
// other goroutines wait for it to reach a condition, without polling and
// without missing a change: a waiter checks under the lock, then waits for
// the next change. The zero value is ready to use.
type State struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
}

// Lock locks the state.
func (s *State) Lock() { s.mu.Lock() }

// Unlock unlocks it.
func (s *State) Unlock() { s.mu.Unlock() }

// Changed wakes the waiters; the lock must be held. The next waiter makes
// a fresh channel, so a change nobody waits for costs nothing.
func (s *State) Changed() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// Await waits until cond, checked under the lock, holds, or ctx ends. When
// ended is closed (the connection is gone), cond is checked once more and
// the wait fails at once with wire.ErrClosed: what has not happened will
// not. what names the condition in errors.
func (s *State) Await(ctx context.Context, ended <-chan struct{}, what string, cond func() bool) error {
	for {
		s.mu.Lock()
		ok := cond()
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ended:
			s.mu.Lock()
			ok = cond()
			s.mu.Unlock()
			if ok { // it happened just as the connection ended
				return nil
			}
			return fmt.Errorf("waiting for %s: %w", what, wire.ErrClosed)
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}
