package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reports"
)

// An agent need not offer create_elicitation (docs/probe.md §1.9): its
// adapter says so by answering a request of that op with the error
// outcome not_offered, or, as an adapter of probe revision 1 answers an
// op it does not know, with JSON-RPC error -32602. Its checks of the op
// are then reported "not offered", neither passed nor failed, and the
// verdict names what it judged (reports.Run.Operations).

// offering is what the catalogue learnt of whether the agent offers
// create_elicitation; needOffered asks once and fills it in.
type offering struct {
	sync.Mutex
	known bool
	// said is what the agent answered when it said it does not offer
	// the op; "" when it offers it.
	said string
}

// needOffered skips an agent check of create_elicitation, reporting it
// not offered, when the agent does not offer the op. Call it first in
// every check of role agent and area ELI:
//
//	e.needOffered(ctx)
//
// The first call of a catalogue asks the agent, once, on a connection of
// its own (offers); the others read what it learnt without asking again.
func (e *env) needOffered(ctx context.Context) {
	GinkgoHelper()
	if said := e.offers(ctx); said != "" {
		AddReportEntry(reports.EntryNotOffered, probe.OpCreateElicitation, ReportEntryVisibilityNever)
		Skip("not offered: the agent does not offer create_elicitation: it answered a request of that op with " + said +
			" (docs/probe.md §1.9), so its checks of the op are neither passed nor failed")
	}
}

// offers learns, once per catalogue, whether the agent offers
// create_elicitation, and returns "" when it does, or else what it
// answered. It sends one create_elicitation request, a form to a client
// that advertises both modes, which the client declines, on a fresh
// connection, so that no earlier session can make it answer otherwise
// (an agent that says "not offered" on a shared connection only fails
// the check there, and SES-1 when it passes on a fresh one). Nothing of
// that connection is judged: any answer but not_offered and -32602 means
// the agent offers the op, and the checks judge it.
func (e *env) offers(ctx context.Context) string {
	GinkgoHelper()
	e.offer.Lock()
	defer e.offer.Unlock()
	if e.offer.known {
		return e.offer.said
	}
	f := e.dial(ctx, formAndURLClient)
	defer f.close() // before the check's own connection
	// Its transcript is the check's evidence only when asking failed.
	DeferCleanup(func() {
		if !e.offer.known {
			e.keepEvidence(f.link, f.mc.Transcript().String)
		}
	})
	what := "to ask whether the agent offers create_elicitation,"
	e.mustStart("initialize, "+what, f.mc.Initialize(e.startWait(ctx)))
	_, err := f.mc.NewSession(e.wait(ctx))
	must("session/new, "+what, err)
	f.answer(script.Decline())
	out, _, err := f.mc.Probe(e.wait(ctx), offeredProbe())
	e.offer.said, e.offer.known = notOfferedAnswer(out, err), true
	return e.offer.said
}

// offeredProbe is the request with which the catalogue asks whether the
// agent offers create_elicitation: a form of one optional field.
func offeredProbe() probe.Request {
	return probe.Request{Acpconform: probe.Version, Op: probe.OpCreateElicitation, Mode: "form", Message: "What should we call you?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name"}}}`)}
}

// notOfferedAnswer says how a probe's answer says the agent does not
// offer the op it was asked to run, "" when it does not say so: the
// outcome not_offered, or the prompt refused with -32602 (Invalid params).
func notOfferedAnswer(out probe.Outcome, err error) string {
	var refused *peer.Error
	switch {
	case err == nil && out.NotOffered() && out.Message != "":
		return fmt.Sprintf("the error outcome not_offered (%q)", elide.Head(out.Message, 200))
	case err == nil && out.NotOffered():
		return "the error outcome not_offered"
	case errors.As(err, &refused) && refused.Code == codeInvalidParams:
		return "JSON-RPC error -32602, as an adapter of probe revision 1 answers an op it does not know"
	}
	return ""
}

// expectOffered fails the check when the agent, which offers
// create_elicitation (needOffered found so), answered a request of the
// op as one that does not offer it.
func (f *fixture) expectOffered(req probe.Request, out probe.Outcome, err error) {
	GinkgoHelper()
	if req.Op != probe.OpCreateElicitation {
		return
	}
	if said := notOfferedAnswer(out, err); said != "" {
		Fail(fmt.Sprintf("the agent answered a create_elicitation request with %s, saying it does not offer the op, although it ran the op when acpconform asked first: "+
			"an adapter offers create_elicitation for every request, form and URL, on every connection and session, or for none (docs/probe.md §1.9)\nthe probe request: %s",
			said, mustJSON(req)))
	}
}
