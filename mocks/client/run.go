package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
)

// FromScript configures a client as a client script says.
func FromScript(s *script.Script) *Client {
	c := New(Config{Capabilities: json.RawMessage(s.Capabilities), Unregistered: s.Unregistered})
	for _, st := range s.Steps {
		if st.Elicitation != nil {
			c.Append(*st.Elicitation)
		}
	}
	return c
}

// Run plays a client script over conn and closes it at the end. It returns
// nil when every step happened as scripted and the agent did nothing
// unscripted; otherwise an error listing every violation, each naming its
// step. Each wait is bounded by the script's timeout; a step that can no
// longer happen (the connection closed) ends the run at once.
func Run(ctx context.Context, s *script.Script, conn wire.Conn) error {
	c := FromScript(s)
	c.Connect(conn)
	defer c.Close()
	err := c.play(ctx, s)
	return errors.Join(append([]error{err}, violations(c.Violations())...)...)
}

func violations(vs []string) []error {
	errs := make([]error, len(vs))
	for i, v := range vs {
		errs[i] = errors.New(v)
	}
	return errs
}

// play runs the steps in order and stops at the first that fails.
func (c *Client) play(ctx context.Context, s *script.Script) error {
	var turn *Turn
	elicitations, outcomes := 0, 0
	for i, st := range s.Steps {
		where := fmt.Sprintf("%s: step %d (%s)", location(s, st), i+1, st.Kind())
		wait, cancel := peer.WithBound(ctx, s.Wait())
		err := func() error {
			switch {
			case st.Initialize != nil:
				caps := c.cfg.Capabilities
				if st.Initialize.Capabilities != nil {
					caps = json.RawMessage(st.Initialize.Capabilities)
				}
				return c.InitializeWith(wait, caps)
			case st.NewSession != nil:
				_, err := c.NewSession(wait)
				return err
			case st.Prompt != nil:
				turn = c.Prompt(ctx, *st.Prompt)
			case st.Probe != nil:
				text, err := json.Marshal(probe.Request(*st.Probe))
				if err != nil {
					return err
				}
				turn = c.Prompt(ctx, string(text))
			case st.Cancel != nil:
				return c.Cancel(wait)
			case st.Elicitation != nil:
				elicitations++
				return c.WaitElicitations(wait, elicitations)
			case st.Outcome != nil:
				return c.expectOutcome(wait, st.Outcome, &outcomes)
			case st.Stop != "":
				if turn == nil {
					return fmt.Errorf("no prompt to stop")
				}
				stop, err := turn.Wait(wait)
				if err == nil && stop != st.Stop {
					err = fmt.Errorf("the turn ended with stopReason %q, want %q", stop, st.Stop)
				}
				return err
			case st.Raw != nil:
				return c.WriteRaw(wait, []byte(*st.Raw))
			case st.Close:
				c.Hangup()
			}
			return nil
		}()
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

// expectOutcome waits for the next outcome report and compares it.
func (c *Client) expectOutcome(ctx context.Context, want *script.Outcome, seen *int) error {
	for {
		*seen++
		text, err := c.WaitText(ctx, *seen)
		if err != nil {
			return fmt.Errorf("no outcome report: %w", err)
		}
		got, ok, err := outcomeIn(text)
		if !ok {
			continue // other agent messages may come between
		}
		if err != nil {
			return err
		}
		if problems := want.Check(got); len(problems) > 0 {
			errs := make([]error, len(problems))
			for i, p := range problems {
				errs[i] = errors.New(p)
			}
			return fmt.Errorf("outcome %s: %w", text, errors.Join(errs...))
		}
		return nil
	}
}

func location(s *script.Script, st script.Step) string {
	if st.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, st.Line)
	}
	if s.File != "" {
		return s.File
	}
	return s.Name
}
