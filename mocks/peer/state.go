package peer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

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
// not. what names the condition in errors. Peer.Await says more.
func (s *State) Await(ctx context.Context, ended <-chan struct{}, what string, cond func() bool) error {
	switch s.await(ctx, ended, nil, cond) {
	case nil:
		return nil
	case ended:
		return fmt.Errorf("waiting for %s: %w", what, wire.ErrClosed)
	}
	return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
}

// await waits until cond holds (nil), or returns the channel that ended
// the wait first: ended, broken or ctx.Done().
func (s *State) await(ctx context.Context, ended, broken <-chan struct{}, cond func() bool) <-chan struct{} {
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
		var stop <-chan struct{}
		select {
		case <-changed:
			continue
		case <-ended:
			stop = ended
		case <-broken:
			stop = broken
		case <-ctx.Done():
			return ctx.Done()
		}
		s.mu.Lock()
		ok = cond()
		s.mu.Unlock()
		if ok { // it happened just as the connection ended
			return nil
		}
		return stop
	}
}

// Await waits, as s.Await does, until cond holds, the connection ends or
// ctx ends. Its error is a *CallError saying why the connection ended and
// what the subject did wrong so far.
func (p *Peer) Await(ctx context.Context, s *State, what string, cond func() bool) error {
	return p.awaitOn(ctx, s, what, cond, nil)
}

// AwaitStrict is Await that also stops waiting when the subject breaks
// the protocol (see Broken), with an error that matches ErrBroken.
func (p *Peer) AwaitStrict(ctx context.Context, s *State, what string, cond func() bool) error {
	return p.awaitOn(ctx, s, what, cond, p.broken)
}

func (p *Peer) awaitOn(ctx context.Context, s *State, what string, cond func() bool, broken <-chan struct{}) error {
	start := time.Now()
	what = "waiting for " + what
	stop := s.await(ctx, p.done, broken, cond)
	switch {
	case stop == nil:
		return nil
	case isClosed(broken): // what broke the protocol may have ended the connection too
		return p.brokenError(what, "first")
	case stop == p.done:
		return p.callError(what, "the connection ended first: "+p.endReason(), wire.ErrClosed)
	}
	reason := "cancelled"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		reason = "it did not happen within " + waited(ctx, start) + " (context deadline exceeded)"
	}
	return p.callError(what, reason, ctx.Err())
}
