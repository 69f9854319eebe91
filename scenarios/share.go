package scenarios

import (
	"context"
	"fmt"
	"slices"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/reports"
)

// Sharing connections between checks.
//
// Most of the time of a catalogue against an agent process is the
// process's start and its initialize, not the checks (a Node agent: about
// 250 ms a start, 1 ms a check). So the checks of an agent that is no part
// of this process share connections: one per set of initialize
// capabilities, initialized once, with a fresh session for every check.
// A check that needs a connection of its own carries the label fresh (see
// [fresh]); one that leaves its connection unsettled (a request in
// flight, an answer withheld, a violation) or fails gives it up.
//
// A shared connection must never make a verdict more lenient than
// --isolate's, so a failure of any attempt counts. A check that fails on
// a shared connection runs again on a fresh one (Ginkgo's FlakeAttempts),
// only to tell the two kinds of failure apart: one that fails again is a
// failure of the check's own rules; one that passes on the fresh
// connection failed because of the sessions that came before it, and
// fails SES-1 (see failsSES1) with both attempts' transcripts. A check
// that failed without a shared connection fails its second attempt at
// once with the first's failure: a fresh attempt is never repeated.
// Options.Isolate turns sharing off.

// fresh labels a check that needs a connection, and so an agent process,
// of its own: it ends the connection or the process, cancels, or watches
// what only a first use shows.
var fresh = Label(freshLabel)

const freshLabel = "fresh"

// sharing holds the connections idle between checks, and what the current
// check's attempt did with them. Checks run one at a time.
type sharing struct {
	on   bool
	idle map[string]*fixture // by capability set
	// usedShared says the current check's first attempt used a connection
	// an earlier check had used; only then does its second attempt run.
	// earlier is how many sessions that connection had served before.
	usedShared bool
	earlier    int
	retrying   bool // the current attempt is the second: no sharing
	// closing counts the connections of passed checks still closing: a
	// process may take its time to exit, and no later check waits for it.
	closing sync.WaitGroup
}

// shareKey is what makes two connections interchangeable: what the mock
// client said in initialize and how it answers.
func shareKey(cfg client.Config) string {
	key := string(cfg.Capabilities)
	if cfg.Capabilities == nil {
		key = "<none>"
	}
	if cfg.Unregistered {
		key += " unregistered"
	}
	if cfg.Strict {
		key += " strict"
	}
	return key
}

// declareSharing readies the catalogue's connection sharing: a check that
// may share runs up to twice, and the connections left idle are closed
// after the last check.
func (e *env) declareSharing() {
	BeforeEach(func() {
		r := CurrentSpecReport()
		switch {
		case r.NumAttempts <= 1:
			e.share.usedShared, e.share.retrying = false, false
		case e.share.usedShared:
			e.share.retrying = true
			// Registered first, so it runs after every other cleanup of
			// the attempt: the connection's own checks have had their say.
			DeferCleanup(e.failsSES1, previousFailure(r), e.share.earlier)
		default: // the first attempt was fresh: its failure stands
			Fail(previousFailure(r))
		}
	})
	AfterAll(e.closeIdle)
}

// mayShare reports whether the current check may take a shared connection.
func (e *env) mayShare() bool {
	return e.share.on && !e.share.retrying && !slices.Contains(CurrentSpecReport().Labels(), freshLabel)
}

// connectShared is connect for a check that may share: an idle connection
// of cfg's capabilities, or a new one, with a fresh session either way.
func (e *env) connectShared(ctx context.Context, cfg client.Config) *fixture {
	GinkgoHelper()
	key := shareKey(cfg)
	f := e.share.idle[key]
	delete(e.share.idle, key)
	if f != nil && f.mc.Reusable() {
		e.share.usedShared = true // a new connection is as fresh as --isolate's
		e.share.earlier = f.sessions
		f.mc.Reset()
		s := CurrentSpecReport()
		f.mc.Transcript().Note(reports.NoteNewCheck + reports.Name(s.ContainerHierarchyTexts, s.LeafNodeText))
	} else {
		if f != nil {
			f.close()
		}
		f = e.dial(ctx, cfg)
		e.mustStart("initialize", f.mc.Initialize(e.startWait(ctx)))
	}
	DeferCleanup(func() {
		switch {
		case CurrentSpecReport().Failed():
			f.close()
			e.keepEvidence(f.link, f.mc.Transcript().String)
			return
		case !f.mc.Reusable():
			e.closeLater(f)
			return
		}
		e.share.idle[key] = f
	})
	DeferCleanup(f.expectNoViolations) // runs first, while the connection is open
	var err error
	f.session, err = f.mc.NewSession(e.wait(ctx))
	must("session/new", err)
	f.sessions++
	return f
}

// failsSES1 fails the second attempt of a check that failed on a
// connection that had served earlier sessions, when it passed on a fresh
// one: what the check observed depended on the sessions before it
// (SES-1), and that is never a pass.
func (e *env) failsSES1(shared string, earlier int) {
	if CurrentSpecReport().Failed() {
		return // it fails on a fresh connection too: its own rules say why
	}
	AddReportEntry(reports.EntrySES1, "SES-1", ReportEntryVisibilityNever)
	Fail(fmt.Sprintf("SES-1: the check failed on a connection that had served %d earlier %s, and passed on a fresh connection: "+
		"the agent does not serve every session of a connection alike. On the shared connection:\n%s",
		earlier, plural(earlier, "session", "sessions"), shared))
}

// closeLater ends the connection of a check that passed while the next
// checks run; closeIdle waits for it.
func (e *env) closeLater(f *fixture) {
	e.share.closing.Add(1)
	go func() {
		defer e.share.closing.Done()
		f.close()
	}()
}

// close ends the fixture's connection.
func (f *fixture) close() {
	f.mc.Close()
	f.link.Close()
}

// closeIdle closes the connections no check uses any more, and has the
// subject stop what it started ahead of need (suite.Command's spares).
func (e *env) closeIdle() {
	var wg sync.WaitGroup // each stop may wait for a process to exit: at once
	for key, f := range e.share.idle {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.close()
		}()
		delete(e.share.idle, key)
	}
	if r, ok := e.subject.(interface{ Release() }); ok {
		r.Release()
	}
	wg.Wait()
	e.share.closing.Wait()
}

// previousFailure is the failure of the current check's first attempt.
func previousFailure(r SpecReport) string {
	if len(r.AdditionalFailures) == 0 {
		return "the check failed"
	}
	return reports.WithoutAttempt(r.AdditionalFailures[0].Failure.Message)
}
