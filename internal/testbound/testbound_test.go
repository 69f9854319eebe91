package testbound

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestMargin(t *testing.T) {
	for _, c := range []struct{ left, want time.Duration }{
		{-time.Second, 0},
		{0, 0},
		{2 * time.Second, 200 * time.Millisecond},
		{3 * time.Minute, 18 * time.Second},
		{10 * time.Minute, MaxMargin},
		{time.Hour, MaxMargin},
	} {
		if got := Margin(c.left); got != c.want {
			t.Errorf("Margin(%s) = %s, want %s", c.left, got, c.want)
		}
	}
}

// Context ends a margin before go test's deadline, not at a limit of its
// own.
func TestContextEndsBeforeTheDeadline(t *testing.T) {
	deadline, ok := t.Deadline()
	if !ok {
		t.Skip("go test -timeout 0: no deadline")
	}
	before := time.Now()
	ctx := Context(t)
	end, ok := ctx.Deadline()
	if !ok {
		t.Fatal("the context has no deadline")
	}
	if margin := Margin(deadline.Sub(before)); end.After(deadline.Add(-margin)) || end.Before(deadline.Add(-margin-time.Second)) {
		t.Errorf("the context ends %s before the test's deadline, want %s", deadline.Sub(end), margin)
	}
	if TimedOut(ctx) != nil || ctx.Err() != nil {
		t.Errorf("a fresh context: TimedOut %v, Err %v", TimedOut(ctx), ctx.Err())
	}
}

func TestTimedOutTellsARunOutBoundFromACancel(t *testing.T) {
	now := time.Now()
	ctx, cancel := until(context.Background(), now, now.Add(100*time.Millisecond))
	defer cancel()
	child, stop := context.WithCancel(ctx)
	defer stop()
	<-child.Done()
	e := TimedOut(child)
	if e == nil {
		t.Fatalf("TimedOut of a context whose bound ran out: nil (cause %v)", context.Cause(child))
	}
	if e.After != 90*time.Millisecond || !strings.HasPrefix(e.Error(), "timed out after 90ms") {
		t.Errorf("the timeout: %s (after %s), want 90ms, a tenth less than the 100ms left", e, e.After)
	}
	if got := Err(child, errors.New("signal: killed")).Error(); !strings.HasPrefix(got, "timed out after 90ms") || !strings.HasSuffix(got, ": signal: killed") {
		t.Errorf("Err = %q, want the timeout, then the error", got)
	}
	if got := Err(child, nil); got != e {
		t.Errorf("Err with no error = %v, want the timeout", got)
	}

	cancelled, cancel2 := until(context.Background(), time.Now(), time.Now().Add(time.Hour))
	cancel2()
	killed := errors.New("signal: killed")
	if TimedOut(cancelled) != nil || Err(cancelled, killed) != killed {
		t.Errorf("a cancelled context: TimedOut %v, Err %v; want nil and the error itself", TimedOut(cancelled), Err(cancelled, killed))
	}
	if TimedOut(context.Background()) != nil {
		t.Error("TimedOut of a context that has not ended")
	}
}

// A deadline already past gives a context that has ended.
func TestUntilAPastDeadline(t *testing.T) {
	now := time.Now()
	ctx, cancel := until(context.Background(), now, now.Add(-time.Second))
	defer cancel()
	if e := TimedOut(ctx); e == nil || e.After != 0 {
		t.Errorf("TimedOut = %v, want a timeout after 0s", e)
	}
}

const childEnv = "TESTBOUND_CHILD"

// TestChildWaitsOut is the child of TestTheFailureSaysTimedOut: it waits
// on Context until its bound runs out.
func TestChildWaitsOut(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestTheFailureSaysTimedOut")
	}
	ctx := Context(t)
	<-ctx.Done()
	t.Fatalf("waiting for nothing: %v", Err(ctx, ctx.Err()))
}

// Under go test -timeout 2s, a test that waits on Context fails with its
// own message, before go test's panic.
func TestTheFailureSaysTimedOut(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 2 s")
	}
	cmd := exec.CommandContext(Context(t), os.Args[0], "-test.run=^TestChildWaitsOut$", "-test.timeout=2s", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	if !strings.Contains(string(out), "waiting for nothing: timed out after 1.8s (go test -timeout, less a margin): context deadline exceeded") ||
		strings.Contains(string(out), "panic: test timed out") {
		t.Errorf("the child's failure does not say it timed out after 1.8s, or go test panicked:\n%s", out)
	}
}
