package suite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
)

// NothingAsked is an agent without a probe adapter that did not ask for a
// typed choice when it was given the run's prompt: the wire-only checks
// would say nothing of its elicitation, so the run checks nothing.
type NothingAsked struct {
	What string // "the agent ended its turn (end_turn) without an elicitation/create"
}

func (e *NothingAsked) Error() string { return e.What }

// AsksFirst is the start-up probe of an agent checked on the wire alone
// (--no-probe): with form elicitation advertised, it opens a session and
// sends prompt, and wants an elicitation/create before the turn ends. A
// session/new or session/prompt that fails is a *StartError quoting the
// agent's error (the run could not run); a turn that ends without asking,
// or asks nothing within turn, is a *NothingAsked. startup bounds the
// start and initialize, response session/new, turn the prompt's turn.
func AsksFirst(ctx context.Context, s Subject, startup, response, turn time.Duration, prompt string) error {
	start, cancel := context.WithTimeoutCause(ctx, startup, fmt.Errorf("within --startup-timeout %s", startup))
	defer cancel()
	link, err := s.Connect(start)
	if err != nil {
		return &StartError{What: fmt.Sprintf("it did not start: %v", err), Err: err}
	}
	mc := client.New(client.Config{Capabilities: client.FormElicitation})
	mc.Route(script.Elicitation{Answer: script.Decline()}) // whatever it asks
	mc.Connect(link.Conn)
	defer func() {
		mc.Close()
		link.Close()
	}()
	failed := func(what string, err error) error {
		return &StartError{What: elide.Head(fmt.Sprintf("%s: %v", what, err), 4000), Stderr: link.Stderr(), Err: err}
	}
	if err := mc.Initialize(start); err != nil {
		return failed("initialize failed", err)
	}
	w, cancelW := peer.WithBound(ctx, response)
	defer cancelW()
	session, err := mc.NewSession(w)
	if err != nil {
		return failed("it refused session/new, so no check can run", err)
	}
	t, cancelT := peer.WithBound(ctx, turn)
	defer cancelT()
	prompted := mc.PromptIn(t, session, prompt)
	asked := make(chan error, 1)
	go func() { asked <- mc.WaitArrived(t, 1) }()
	select {
	case err := <-asked:
		if err == nil {
			return nil
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return &NothingAsked{What: fmt.Sprintf("the agent sent no elicitation/create within %s of the --prompt %q, and its turn had not ended: nothing of its elicitation was checked", turn, elide.Head(prompt, 200))}
		}
		return failed("the connection failed before the agent asked", err)
	case <-prompted.Done():
	}
	stop, err := prompted.Wait(t)
	if len(mc.Elicitations()) > 0 {
		return nil // it asked, then ended the turn
	}
	if err != nil {
		return failed("its prompt turn failed, so no check can run", err)
	}
	return &NothingAsked{What: fmt.Sprintf("the agent ended its turn (%s) without an elicitation/create in answer to the --prompt %q: nothing of its elicitation was checked; give a --prompt that makes it ask one typed choice", stop, elide.Head(prompt, 200))}
}
