// Package probeagent is the reference implementation's adapter for the agent
// probe contract (docs/probe.md §1): an ACP agent whose every prompt is a
// probe request, run with [reference.AskChoice] (or, for op
// create_elicitation, [reference.Session.CreateElicitation]), and whose
// reply is the outcome.
//
// It is the Go adapter kit (package kit) around the reference: the kit
// parses the request, builds the values and the fallback, and reports the
// outcome, so every check the catalogue runs against the reference checks
// the kit too. Values of the probe request are the kit's: JSON null is
// nil, anything else a distinct pointer. Fallback values are matched to
// the offered ones as JSON ([probe.SameValue], through
// [reference.WithEqual]), and the reported index is found by identity, so
// an implementation that returns a copy instead of the offered value is
// caught.
package probeagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/acpconform/acpconform/kit"
	"github.com/acpconform/acpconform/reference"
)

// Serve runs a probe agent on a connection whose outgoing frames go to w and
// incoming frames come from r, with its diagnostics going to log. It ends
// when r ends.
func Serve(w io.Writer, r io.Reader, log *slog.Logger) *kit.Conn {
	a := Adapter()
	a.Log = log
	return a.Start(w, r)
}

// Adapter returns the reference's probe adapter: the kit around the
// reference's ask_choice and create_elicitation, with the reference's
// errors for the outcome's error kinds.
func Adapter() kit.Agent {
	return kit.Agent{Name: "acpconform-reference-agent", AskChoice: askChoice, CreateElicitation: createElicitation,
		Errors: kit.Errors{InvalidArgument: reference.ErrInvalidArgument, Unsupported: reference.ErrElicitationUnsupported,
			InvalidResponse: reference.ErrInvalidResponse, InvalidFallback: reference.ErrInvalidFallback}}
}

// askChoice runs reference.AskChoice as the probe request says.
func askChoice(c *kit.Call) (any, error) {
	choices := kit.MapChoices(c.Choices, func(ch kit.Choice) reference.Choice[any] {
		return reference.Choice[any]{Value: ch.Value, Label: ch.Label, Description: ch.Description, Default: ch.Default}
	})
	opts := []reference.Option[any]{reference.WithEqual(c.Equal)}
	if fallback := kit.Fallback(c, reference.Accept[any], reference.Decline[any], reference.Cancel[any]); fallback != nil {
		opts = append(opts, reference.WithFallback(fallback))
	}
	if c.PlainFallback != nil {
		opts = append(opts, reference.WithPlainFallback(c.PlainFallback)) //nolint:staticcheck // the deprecated path is under test
	}
	return reference.AskChoice(c.Context(), session(c.Session, c.Log), c.Question, choices, opts...)
}

// createElicitation runs the reference's low-level create_elicitation
// (ELI-1..3) as the probe request says.
func createElicitation(c *kit.ElicitationCall) (any, error) {
	er := reference.ElicitationRequest{Mode: reference.ElicitationMode(c.Mode), Message: c.Message, URL: c.URL, ElicitationID: c.ElicitationID}
	if c.RequestedSchema != nil {
		dec := json.NewDecoder(bytes.NewReader(c.RequestedSchema))
		dec.UseNumber() // every bound and default as written (ELI-2)
		if err := dec.Decode(&er.RequestedSchema); err != nil {
			return nil, fmt.Errorf("the requestedSchema cannot be read: %w", err)
		}
	}
	return session(c.Session, nil).CreateElicitation(c.Context(), er)
}

// session is the reference's view of the kit's session; log receives the
// deprecation warnings.
func session(s *kit.Session, log *slog.Logger) *reference.Session {
	return &reference.Session{ID: s.ID, ClientCapabilities: s.ClientCapabilities, Client: s, Log: log}
}
