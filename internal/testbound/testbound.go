// Package testbound gives the waits of a test one wall-clock bound, go
// test's own -timeout, instead of fixed limits of their own that a loaded
// machine can exceed while nothing is wrong.
//
// Context returns a context that ends a margin before the test binary's
// deadline (t.Deadline, which -timeout sets): the margin leaves the test
// the time to stop what it started and to say what was running, before
// go test panics. A context that ran out carries a *Timeout as its cause,
// whose message is "timed out after 9m30s"; TimedOut and Err find it, so
// that a process killed by the bound is reported as a timeout, not as the
// exit code -1 of a signal.
//
// Limits that check a subject (a check's promptness bound, a contract's
// 2 s) are no waits of this kind and stay as they are.
package testbound

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// MaxMargin is the longest margin Context leaves before the deadline: 30 s
// of go test's default 10 minutes.
const MaxMargin = 30 * time.Second

// Margin is how long before a deadline that is left away a bound ends: a
// tenth of it, at most MaxMargin.
func Margin(left time.Duration) time.Duration {
	if left <= 0 {
		return 0
	}
	return min(left/10, MaxMargin)
}

// Timeout is the cause of a context of Context that ran out.
type Timeout struct {
	After time.Duration // how long the bound was, to a tenth of a second (a millisecond under a second)
}

func (e *Timeout) Error() string {
	return fmt.Sprintf("timed out after %s (go test -timeout, less a margin)", e.After)
}

// Context returns a context that ends Margin before t's deadline, or when
// t ends (t.Context). Without a deadline (go test -timeout 0) only the end
// of t ends it.
func Context(t *testing.T) context.Context {
	deadline, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := until(t.Context(), time.Now(), deadline)
	t.Cleanup(cancel)
	return ctx
}

// until bounds parent by deadline, less Margin, from now.
func until(parent context.Context, now, deadline time.Time) (context.Context, context.CancelFunc) {
	left := deadline.Sub(now)
	bound := max(left-Margin(left), 0)
	shown := bound.Round(time.Millisecond)
	if bound >= time.Second {
		shown = bound.Round(time.Second / 10)
	}
	return context.WithDeadlineCause(parent, now.Add(bound), &Timeout{After: shown})
}

// TimedOut returns the *Timeout of ctx when ctx, or a context it derives
// from, was made by Context and has run out; nil otherwise.
func TimedOut(ctx context.Context) *Timeout {
	var e *Timeout
	if errors.As(context.Cause(ctx), &e) {
		return e
	}
	return nil
}

// Err says why something that waited on ctx failed with err: when ctx's
// bound ran out, "timed out after D: err" (err may be nil); otherwise err
// itself.
func Err(ctx context.Context, err error) error {
	e := TimedOut(ctx)
	switch {
	case e == nil:
		return err
	case err == nil:
		return e
	}
	return fmt.Errorf("%w: %v", e, err)
}
