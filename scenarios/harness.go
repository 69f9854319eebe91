package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/internal/testcost"
	"github.com/acpconform/acpconform/judge"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
)

// Options configure the catalogue.
type Options struct {
	Subject suite.Subject
	// Response bounds each wait for the subject; Scenario each spec.
	// Startup bounds the start and first initialize of each process a
	// check starts (see start.go); a check's bound is Scenario and
	// Startup together. Zero values mean suite's defaults.
	Response, Scenario, Startup time.Duration
	// FreeUser says a client under test does not follow scripted-user
	// instructions: only the validity of its answers is checked.
	FreeUser bool
	// Prompt makes an agent without a probe adapter ask; the wire-only
	// checks send it instead of a probe request.
	Prompt string
	// Isolate gives every check a connection, and so an agent process, of
	// its own. Otherwise the checks of an agent that is no part of this
	// process share connections (see share.go), and a check that fails on
	// a shared one runs again on a fresh one before it is reported.
	Isolate bool
	// Promptly is the bound of "promptly" (RTE-7): how soon a cancelled
	// turn, a closed connection or an ended stdin must end a pending
	// choice. Zero means DefaultPromptly, the contract's; a slow machine
	// may raise it, nothing may lower it.
	Promptly time.Duration
	// Traces, when set, is a directory where every connection a check
	// opens to an agent or a client is written as a trace
	// (docs/traces.md), for acpconform judge and replay.
	Traces string
	// KeepGoing runs every check. Otherwise, once one cause has failed
	// reports.RepeatRules rules in a row, the checks after are not run
	// (see reports.Repeats): they would only repeat it.
	KeepGoing bool
}

// DefaultPromptly is the contract's "promptly": within 2 seconds (RTE-7),
// the judge's bound of a trace too.
const DefaultPromptly = judge.Promptly

// env is what every spec of one catalogue shares.
type env struct {
	subject    suite.Subject
	response   time.Duration
	scenario   time.Duration
	startup    time.Duration
	freeUser   bool
	promptText string
	promptly   time.Duration
	traces     *traceDir // nil unless Options.Traces

	checks *Checks // what this catalogue declares
	share  sharing // connections the checks share, unless isolated

	caps       sync.Mutex // advertisesForm, for a client subject
	known      bool       // the client's capabilities were read
	form       bool
	clientCaps json.RawMessage

	offer offering // whether an agent offers create_elicitation (needOffered)

	keepGoing bool
	repeats   reports.Repeats // the failures in a row, unless keepGoing
}

// Catalogue declares every check of o.Subject's role against it. Call it
// while Ginkgo builds its tree: at the top level, or in a container. The
// checks it returns are listed once Ginkgo has built the tree (see Checks).
func Catalogue(o Options) *Checks {
	e := &env{subject: o.Subject, response: o.Response, scenario: o.Scenario, startup: o.Startup, freeUser: o.FreeUser, promptText: o.Prompt, promptly: o.Promptly, keepGoing: o.KeepGoing, checks: &Checks{}}
	if o.Traces != "" {
		e.traces = &traceDir{dir: o.Traces, subject: o.Subject.Name()}
	}
	if e.response <= 0 {
		e.response = suite.DefaultResponse
	}
	if e.promptly < DefaultPromptly {
		e.promptly = DefaultPromptly
	}
	if e.scenario <= 0 {
		e.scenario = suite.DefaultScenario
	}
	if e.startup <= 0 {
		e.startup = suite.DefaultStartup
	}
	e.share = sharing{on: !o.Isolate && o.Subject.Role() == suite.AgentRole, idle: map[string]*fixture{}}
	// One ordered container: the checks run in the catalogue's order, a
	// failure does not stop the rest, and AfterAll closes what they shared.
	Describe("", Ordered, ContinueOnFailure, func() {
		BeforeAll(func() { testcost.Note(testcost.Run) })
		BeforeEach(func() {
			if why := e.repeats.Stop(); why != "" && !e.keepGoing {
				Skip(why)
			}
			if CurrentSpecReport().NumAttempts <= 1 {
				testcost.Note(testcost.Check)
			}
			var ids []string
			for _, l := range CurrentSpecReport().Labels() {
				if id, ok := strings.CutPrefix(l, "rule:"); ok {
					ids = append(ids, id)
				}
			}
			AddReportEntry(reports.EntryRules, strings.Join(ids, ", "), ReportEntryVisibilityNever)
		})
		ReportAfterEach(e.repeats.Ended)
		e.declareSharing()
		switch o.Subject.Role() {
		case suite.ClientRole:
			e.cli()
			e.eliClient()
		case suite.AgentRole:
			e.sch()
			e.val()
			e.def()
			e.tok()
			e.res()
			e.capabilities()
			e.fb()
			e.dep()
			e.rte()
			e.ses()
			e.eliAgent()
			e.wire()
			e.remote()
		case suite.RelayRole:
			e.relayChecks()
			e.relChecks()
		}
	})
	return e.checks
}

// rules labels a check with the CONTRACT IDs it checks: rule:<ID> for
// each, the area and role of the first, and the level MUST when any of
// them is a MUST. The first is also the rule of the check's ID. An unknown
// ID panics while the tree is built, so a typo cannot ship.
func rules(ids ...string) Labels {
	first := suite.MustLookup(ids[0])
	level := suite.Should
	labels := Labels{"area:" + first.Area, "role:" + string(first.Role)}
	for _, id := range ids {
		r := suite.MustLookup(id)
		if r.Level == suite.Must {
			level = suite.Must
		}
		labels = append(labels, "rule:"+id)
	}
	return append(labels, "level:"+string(level))
}

// inProcess labels a check that needs the reference's Go API.
var inProcess = Label("in-process")

// needInProcess skips a check the subject cannot run.
func (e *env) needInProcess() {
	if !e.subject.InProcess() {
		Skip("needs the reference's Go API; runs only against the reference in-process")
	}
}

// Client capability sets the checks use.
var (
	formClient = client.Config{Capabilities: client.FormElicitation}
	bareClient = client.Config{Capabilities: client.NoElicitation}
)

// fixture is one connection to the subject with a mock client on our end.
type fixture struct {
	e       *env
	mc      *client.Client
	link    *suite.Link
	session string
	// sessions counts the sessions opened on the connection in all.
	sessions int
}

// connect opens a fresh connection, initializes with cfg's capabilities and
// opens a session. When the spec fails, the transcript and the subject's
// stderr are attached to its report; when it ends, the subject must have
// done nothing unscripted.
func (e *env) connect(ctx context.Context, cfg client.Config) *fixture {
	GinkgoHelper()
	if e.mayShare() {
		return e.connectShared(ctx, cfg)
	}
	return e.connectOwn(ctx, cfg, e.initialize)
}

// connectOwn is connect on a connection of the check's own, shared with
// no other check, with initialize, which sends initialize and reports
// whether the subject accepted it. When it did not, connectOwn opens no
// session and returns nil.
func (e *env) connectOwn(ctx context.Context, cfg client.Config, initialize func(context.Context, *fixture) bool) *fixture {
	GinkgoHelper()
	f := e.open(ctx, cfg)
	if !initialize(ctx, f) {
		return nil
	}
	var err error
	f.session, err = f.mc.NewSession(e.wait(ctx))
	must("session/new", err)
	return f
}

// initialize sends initialize with f's capabilities; the subject must
// accept them.
func (e *env) initialize(ctx context.Context, f *fixture) bool {
	GinkgoHelper()
	e.mustStart("initialize", f.mc.Initialize(e.startWait(ctx)))
	return true
}

// open connects without initializing.
func (e *env) open(ctx context.Context, cfg client.Config) *fixture {
	GinkgoHelper()
	f := e.dial(ctx, cfg)
	DeferCleanup(func() {
		if !CurrentSpecReport().Failed() && !e.share.retrying {
			e.closeLater(f) // nothing to show of it: the next check need not wait
			return
		}
		f.close()
		e.keepEvidence(f.link, f.mc.Transcript().String)
	})
	DeferCleanup(f.expectNoViolations) // runs before the cleanup above: the connection is still open
	return f
}

// dial opens a fresh connection with a mock client of cfg on it; the
// caller closes it.
func (e *env) dial(ctx context.Context, cfg client.Config) *fixture {
	GinkgoHelper()
	link := e.connectSubject(ctx, "connecting to "+e.subject.Name())
	f := &fixture{e: e, mc: client.New(cfg), link: link}
	f.mc.Connect(link.Conn)
	return f
}

// expectNoViolations fails the spec when the subject did what no client
// script allowed.
func (f *fixture) expectNoViolations() {
	expectNone("the agent did what no client script allowed", f.mc.Violations())
}

// keepEvidence attaches to a failed spec what shows why: the transcript,
// how the subject's process ended when it died during the check, and the
// end of its stderr. Call it once link is closed. The second attempt of
// a check that failed on a shared connection keeps its evidence even
// while it passes: it may still fail SES-1 (share.go).
func (e *env) keepEvidence(link *suite.Link, transcript func() string) {
	r := CurrentSpecReport()
	if !r.Failed() && !e.share.retrying {
		return
	}
	AddReportEntry(reports.EntryTranscript, reports.Transcript{Attempt: r.NumAttempts, Text: transcript()}, ReportEntryVisibilityFailureOrVerbose)
	if died := link.Died(); died != "" {
		AddReportEntry(reports.EntryProcess, died+" during the check", ReportEntryVisibilityFailureOrVerbose)
	}
	if d := link.Stderr(); d != "" {
		AddReportEntry(reports.EntryDiagnostics, d, ReportEntryVisibilityFailureOrVerbose)
	}
}

// wait is a context for one wait for the subject.
func (e *env) wait(ctx context.Context) context.Context { return e.waitHops(ctx, 1) }

// waitHops is a context for a wait that spans hops crossings of a relay
// under test, each of which may take its time: the response timeout for
// each (no contract rule limits a relay's latency).
func (e *env) waitHops(ctx context.Context, hops int) context.Context {
	return bounded(ctx, e.response*time.Duration(hops))
}

// bounded is ctx bounded by d for the rest of the spec; its errors say
// the bound: "within 5s".
func bounded(ctx context.Context, d time.Duration) context.Context {
	w, cancel := peer.WithBound(ctx, d)
	DeferCleanup(cancel)
	return w
}

// answer queues the client's answers to the next elicitations.
func (f *fixture) answer(answers ...script.Answer) *fixture {
	for _, a := range answers {
		f.mc.Append(script.Elicitation{Answer: a})
	}
	return f
}

// probe runs a probe request as a prompt and returns the outcome; the turn
// must end with end_turn. A create_elicitation request is skipped, not
// offered, when the agent does not offer the op (needOffered), and fails
// when the agent, which offers it, answers as one that does not.
func (f *fixture) probe(ctx context.Context, req probe.Request) probe.Outcome {
	GinkgoHelper()
	if req.Op == probe.OpCreateElicitation {
		f.e.needOffered(ctx)
	}
	out, stop, err := f.mc.Probe(f.e.wait(ctx), req)
	f.expectOffered(req, out, err)
	f.failProbe(err, req, "")
	expectEqual("the agent ended the probe's prompt turn with stopReason %s, want %s", stop, "end_turn")
	return out
}

// failProbe fails the spec when a probe request got no outcome, or one
// that breaks the contract; where, when not "", says in which session.
func (f *fixture) failProbe(err error, req probe.Request, where string) {
	GinkgoHelper()
	if where != "" {
		where = " in " + where
	}
	var broken *client.OutcomeError
	switch {
	case errors.As(err, &broken): // it reported one, and it breaks the contract
		Fail(fmt.Sprintf("%v%s\nthe probe request: %s", err, where, mustJSON(req)))
	case err != nil:
		Fail(fmt.Sprintf("the agent reported no outcome for the probe request%s: %s\nthe probe request: %s",
			where, strings.TrimPrefix(err.Error(), "session/prompt: "), mustJSON(req)))
	}
}

// sent returns the elicitation/create requests the subject sent.
func (f *fixture) sent() []client.Elicitation { return f.mc.Elicitations() }

// params returns the params of the only elicitation/create sent.
func (f *fixture) params() json.RawMessage {
	GinkgoHelper()
	sent := f.sent()
	expectEqual("the agent sent %s elicitation/create requests for one ask_choice, want %s", len(sent), 1)
	return sent[0].Request.Params
}

// expectSent fails the spec unless the agent sent n elicitation/create
// requests; why says what the check wants them for.
func (f *fixture) expectSent(n int, why string) {
	GinkgoHelper()
	got := len(f.sent())
	assert(got == n, "the agent sent %d elicitation/create %s, want %d: %s", got, plural(got, "request", "requests"), n, why)
}

// expectNoRequest fails the spec when the agent sent the client any
// request; why says why it may not.
func (f *fixture) expectNoRequest(why string) {
	GinkgoHelper()
	r := f.requests()
	assert(len(r) == 0, "the agent sent the %s %s, want none: %s", plural(len(r), "request", "requests"), show(r), why)
}

// expectCancelled fails the spec unless the agent ends turn, which the
// client cancelled while what says was pending, with stopReason
// cancelled, within the response timeout.
func (f *fixture) expectCancelled(ctx context.Context, turn *client.Turn, what string) {
	GinkgoHelper()
	stop, err := turn.Wait(f.e.wait(ctx))
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		Fail(fmt.Sprintf("the agent did not end the prompt turn within %s of session/cancel, while %s", f.e.response, what))
	case err != nil:
		Fail(fmt.Sprintf("the prompt turn cancelled while %s failed: %s", what, strings.TrimPrefix(err.Error(), "session/prompt: ")))
	}
	expectEqual("the agent ended the cancelled prompt turn with stopReason %s, want %s", stop, "cancelled")
}

// requests lists the methods of every request the subject sent.
func (f *fixture) requests() []string {
	var methods []string
	for _, m := range f.mc.Received() {
		if m.IsRequest() {
			methods = append(methods, m.Method)
		}
	}
	return methods
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("scenarios: %v", err))
	}
	return string(b)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
