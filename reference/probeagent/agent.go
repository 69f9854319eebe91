// Package probeagent is the reference implementation's adapter for the agent
// probe contract (PROBE.md §1): an ACP agent whose every prompt is a probe
// request, run with [reference.AskChoice], and whose reply is the outcome.
//
// Values of the probe request become Go values of type any: JSON null becomes
// nil, anything else a distinct pointer. Fallback values are matched to the
// offered ones as JSON ([probe.SameValue]), and the reported index is found by
// identity, so an implementation that returns a copy instead of the offered
// value is caught.
package probeagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
)

// Agent is the probe agent. Serve it with [Serve].
type Agent struct {
	conn     *reference.AgentConnection
	sessions atomic.Int64
}

var _ acp.Agent = (*Agent)(nil)

// Serve runs a probe agent on a connection whose outgoing frames go to w and
// incoming frames come from r, with its diagnostics going to log. It ends
// when r ends.
func Serve(w io.Writer, r io.Reader, log *slog.Logger) *reference.AgentConnection {
	a := &Agent{}
	a.conn = reference.NewUnstartedAgentConnection(a, w, r)
	a.conn.SetLogger(log)
	a.conn.Start()
	return a.conn
}

// Initialize implements acp.Agent.
func (a *Agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: "acpconform-reference-agent", Version: "1"},
		AuthMethods:     []acp.AuthMethod{},
	}, nil
}

// NewSession implements acp.Agent.
func (a *Agent) NewSession(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: acp.SessionId("probe-" + strconv.FormatInt(a.sessions.Add(1), 10))}, nil
}

// Prompt implements acp.Agent: it runs the probe request in the prompt's
// text and reports the outcome. A prompt that is not a probe request fails
// with -32602 and the reason.
func (a *Agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	var text string
	for _, b := range p.Prompt {
		if b.Text != nil {
			text += b.Text.Text
		}
	}
	req, err := probe.ParseRequest(text)
	if err != nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	warnings := &warningLog{}
	session := a.conn.Session(p.SessionId)
	session.Log = warnings.logger()
	out := run(ctx, session, req)
	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	out.Warnings = warnings.list()
	text, err = marshal(out)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	if err := a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId, Update: acp.UpdateAgentMessageText(text)}); err != nil {
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// run asks the probe's question and describes the outcome.
func run(ctx context.Context, s *reference.Session, req probe.Request) probe.Outcome {
	if req.Op == probe.OpCreateElicitation {
		return createElicitation(ctx, s, req)
	}
	choices := make([]reference.Choice[any], len(req.Choices))
	for i, c := range req.Choices {
		choices[i] = reference.Choice[any]{Value: newValue(c.Value), Label: c.Label, Description: c.Description, Default: c.Default}
	}
	opts := []reference.Option[any]{reference.WithEqual(sameValue)}
	if req.Fallback != nil {
		opts = append(opts, fallback(*req.Fallback, time.Duration(req.FallbackDelayMs)*time.Millisecond))
	}
	res, err := reference.AskChoice(ctx, s, req.Question, choices, opts...)
	if err != nil {
		return errorOutcome(err)
	}
	out := probe.Outcome{Acpconform: probe.Version, Outcome: string(res.Status())}
	if res.Status() == reference.StatusAccepted {
		index := -1 // the value is none of the offered ones
		for i, c := range choices {
			if c.Value == res.Value() {
				index = i
				break
			}
		}
		out.Index = &index
		out.Value = rawOf(res.Value())
	}
	return out
}

// createElicitation runs the low-level create_elicitation the probe asks
// for and describes its outcome: the action, and an accepted form's
// content as the client sent it (ELI-1..3).
func createElicitation(ctx context.Context, s *reference.Session, req probe.Request) probe.Outcome {
	er := reference.ElicitationRequest{Mode: reference.ElicitationMode(req.Mode), Message: req.Message, URL: req.URL, ElicitationID: req.ElicitationID}
	if req.RequestedSchema != nil {
		dec := json.NewDecoder(bytes.NewReader(req.RequestedSchema))
		dec.UseNumber() // every bound and default as written (ELI-2)
		if err := dec.Decode(&er.RequestedSchema); err != nil {
			return errorOutcome(fmt.Errorf("the requestedSchema cannot be read: %w", err))
		}
	}
	resp, err := s.CreateElicitation(ctx, er)
	if err != nil {
		return errorOutcome(err)
	}
	out := probe.Outcome{Acpconform: probe.Version}
	switch resp.Action {
	case "accept":
		out.Outcome, out.Content = probe.OutcomeAccepted, resp.Content
	case "decline":
		out.Outcome = probe.OutcomeDeclined
	case "cancel":
		out.Outcome = probe.OutcomeCancelled
	default: // the probe contract has no outcome for a custom action
		return errorOutcome(&reference.ResponseError{Reason: fmt.Sprintf("unknown action %q", resp.Action), Result: resp.Raw})
	}
	return out
}

// fallbackFailure is the error of an "error" fallback.
type fallbackFailure struct{ message string }

func (f *fallbackFailure) Error() string { return f.message }

// fallback builds the fallback option a probe request asks for.
func fallback(f probe.Fallback, delay time.Duration) reference.Option[any] {
	if f.Kind == probe.FallbackPlain {
		v := newValue(f.Value)
		return reference.WithPlainFallback(func(ctx context.Context) (any, error) { //nolint:staticcheck // the deprecated path is under test
			return v, wait(ctx, delay)
		})
	}
	return reference.WithFallback(func(ctx context.Context) (reference.Result[any], error) {
		if err := wait(ctx, delay); err != nil {
			return reference.Result[any]{}, err
		}
		switch f.Kind {
		case probe.FallbackAccepted:
			return reference.Accept(newValue(f.Value)), nil
		case probe.FallbackDeclined:
			return reference.Decline[any](), nil
		case probe.FallbackCancelled:
			return reference.Cancel[any](), nil
		case probe.FallbackError:
			return reference.Result[any]{}, &fallbackFailure{f.Message}
		}
		return reference.Result[any]{}, fmt.Errorf("unknown fallback kind %q", f.Kind)
	})
}

// wait waits for d or until ctx ends, as a fallback that takes its time.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errorOutcome classifies an error of AskChoice.
func errorOutcome(err error) probe.Outcome {
	out := probe.Outcome{Acpconform: probe.Version, Outcome: probe.OutcomeError, Message: err.Error()}
	var failure *fallbackFailure
	var reqErr *reference.RequestError
	switch {
	case errors.As(err, &failure):
		out.Error = probe.ErrorFallback
	case errors.Is(err, reference.ErrInvalidArgument):
		out.Error = probe.ErrorInvalidArgument
	case errors.Is(err, reference.ErrElicitationUnsupported):
		out.Error = probe.ErrorUnsupported
	case errors.Is(err, reference.ErrInvalidResponse):
		out.Error = probe.ErrorInvalidResponse
	case errors.Is(err, reference.ErrInvalidFallback):
		out.Error = probe.ErrorInvalidFallback
	case errors.As(err, &reqErr):
		out.Error, out.Code, out.Message, out.Data = probe.ErrorRequest, &reqErr.Code, reqErr.Message, reqErr.Data
	case errors.Is(err, reference.ErrConnectionClosed):
		out.Error = probe.ErrorConnection
	default:
		out.Error = probe.ErrorInternal
	}
	return out
}

func marshal(out probe.Outcome) (string, error) {
	b, err := json.Marshal(out)
	return string(b), err
}

// The rest of acp.Agent: the probe needs none of it.

// Authenticate implements acp.Agent.
func (a *Agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

// Cancel implements acp.Agent; the connection cancels the prompt's context.
func (a *Agent) Cancel(context.Context, acp.CancelNotification) error { return nil }

// CloseSession implements acp.Agent.
func (a *Agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

// ListSessions implements acp.Agent.
func (a *Agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, nil
}

// ResumeSession implements acp.Agent.
func (a *Agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

// SetSessionConfigOption implements acp.Agent.
func (a *Agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, nil
}

// SetSessionMode implements acp.Agent.
func (a *Agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}
