package suite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/wire"
)

// StartError is a subject that could not be run: what it did instead of
// starting, and the end of its stderr.
type StartError struct {
	What   string // "it exited with status 5 before it answered initialize"
	Stderr string // the end of its stderr, when it is a process
	Err    error  // the cause, for errors.Is: context.Canceled for an interrupt
}

// stderrLines is how many of a subject's last stderr lines a diagnosis quotes.
const stderrLines = 10

func (e *StartError) Error() string {
	var b strings.Builder
	b.WriteString(e.What)
	if tail := lastLines(e.Stderr, stderrLines); tail != "" {
		b.WriteString("; its stderr ends:\n  ")
		b.WriteString(strings.ReplaceAll(tail, "\n", "\n  "))
	}
	return b.String()
}

func (e *StartError) Unwrap() error { return e.Err }

// lastLines keeps the last n lines of s, each bounded, without the blank end.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n\t ")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = elide.Head(l, 500)
	}
	return strings.Join(lines, "\n")
}

// Preflight starts the subject once and has initialize cross it, so that a
// subject that cannot even do that is one clear diagnosis instead of a
// catalogue of failures: an agent answers initialize, a client sends it
// (and may finish its turn), a relay relays it to a mock agent. timeout
// bounds it all. The error is a *StartError.
func Preflight(ctx context.Context, s Subject, timeout time.Duration) error {
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("within --startup-timeout %s", timeout))
	defer cancel()
	link, err := s.Connect(ctx)
	if err != nil {
		var se *StartError
		if errors.As(err, &se) {
			return se
		}
		return &StartError{What: fmt.Sprintf("it did not start: %v", err), Err: err}
	}
	// Strict peers: a subject that breaks the protocol fails at once,
	// not when the start-up timeout runs out.
	var what, failure string
	var problems []string
	switch {
	case s.Role() == ClientRole:
		what = "sent initialize"
		a := agent.New(agent.Config{Timeout: timeout, Strict: true})
		a.Connect(link.Conn)
		if err = a.WaitInitialize(ctx); err == nil {
			_ = a.WaitTurns(ctx, 1) // let a well-behaved client finish before it is stopped
		}
		problems, failure = a.Violations(), a.Failure()
		a.Close()
	case link.Upstream != nil:
		what = "relayed initialize"
		problems, failure, err = preflightRelay(ctx, link, timeout)
	default:
		what = "answered initialize"
		mc := client.New(client.Config{Strict: true})
		mc.Connect(link.Conn)
		err = mc.Initialize(ctx)
		problems, failure = mc.Violations(), mc.Failure()
		mc.Close()
	}
	link.Close()
	var se *StartError
	switch {
	case err == nil:
		return nil
	case link.ConnectedAgain() != "":
		// It explains the rest: the first connection the subject gave up
		// on, the end of a process whose agent was refused.
		return &StartError{What: link.ConnectedAgain(), Stderr: link.Stderr(), Err: err}
	case errors.As(err, &se):
		se.Stderr = link.Stderr()
		return se
	}
	return &StartError{What: failedStart(ctx, what, err, link, problems, failure), Stderr: link.Stderr(), Err: err}
}

// preflightRelay has initialize cross a relay: a mock client on its client
// side, a mock agent where it connects. It returns what the client saw
// wrong, as Preflight's other probes do.
func preflightRelay(ctx context.Context, link *Link, timeout time.Duration) (problems []string, failure string, err error) {
	a := agent.New(agent.Config{Timeout: timeout})
	upstream := make(chan error, 1)
	go func() {
		up, err := link.Upstream(ctx)
		if err == nil {
			a.Connect(up)
		}
		upstream <- err
	}()
	mc := client.New(client.Config{Strict: true})
	mc.Connect(link.Conn)
	initialized := make(chan error, 1)
	go func() { initialized <- mc.Initialize(ctx) }()
	connected, heard := false, false // heard: the upstream wait has ended
	hear := func(uerr error) {
		heard, connected = true, uerr == nil
		if uerr != nil && !errors.Is(uerr, context.DeadlineExceeded) && err == nil {
			err = uerr // it exited before it connected: say so at once
		}
	}
	select {
	case err = <-initialized:
	case uerr := <-upstream:
		hear(uerr)
		if err == nil { // connected, or the deadline ended its wait: initialize ends too
			err = <-initialized
		}
	}
	if !heard {
		select {
		case uerr := <-upstream:
			hear(uerr)
		default:
		}
	}
	problems, failure = mc.Violations(), mc.Failure()
	mc.Close()
	link.Close() // ends a relay still waiting to connect
	if !heard {
		<-upstream
	}
	if connected {
		a.Close()
	} else if errors.Is(err, context.DeadlineExceeded) {
		err = &StartError{What: fmt.Sprintf("it did not connect to %s %v", link.upstreamWhat, context.Cause(ctx)), Err: err}
	}
	return problems, failure, err
}

// failedStart says in a sentence what a subject did instead of what it
// should have: it broke the protocol, it died, it said nothing in time.
// failure is the peer's account of the first protocol break.
func failedStart(ctx context.Context, what string, err error, link *Link, problems []string, failure string) string {
	var b strings.Builder
	switch died := link.Died(); {
	case errors.Is(err, peer.ErrBroken):
		fmt.Fprintf(&b, "it broke the protocol before it %s: %s", what, failure)
		problems = nil // the failure is the first of them
		if died != "" {
			fmt.Fprintf(&b, "; it %s", died)
		}
	case died != "":
		fmt.Fprintf(&b, "it %s before it %s", died, what)
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(&b, "it had not %s %v", what, context.Cause(ctx))
	case errors.Is(err, wire.ErrClosed):
		fmt.Fprintf(&b, "it closed the connection before it %s", what)
	default:
		fmt.Fprintf(&b, "it had not %s: %v", what, err)
	}
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3:3], fmt.Sprintf("and %d more", len(problems)-3))
		}
		b.WriteString("; what it did wrong meanwhile: ")
		b.WriteString(strings.Join(problems, "; "))
	}
	return elide.Head(b.String(), 4000)
}
