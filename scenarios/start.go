package scenarios

import (
	"context"
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
)

// Starting the subject.
//
// Every process a check starts (a connection of an agent on stdio, a
// client or relay started for the check, a spare) gets the startup
// timeout for its start and its first initialize, as the run's first
// process does in suite.Preflight: a correct subject that is slow to
// start on a busy machine is not a subject that breaks a rule. Once it
// runs, the response timeout bounds its answers. A subject that does not
// start in time is an error of the check (reports.StateError), never a
// failure of the rules it checks, and a run with such a check is never
// conformant.

// startWait is a context for one wait that is part of the subject's
// start: its connection, its first initialize.
func (e *env) startWait(ctx context.Context) context.Context { return bounded(ctx, e.startup) }

// connectSubject opens a fresh connection to the subject, the start of a
// process for a command, within the startup timeout. what names the
// connection in a failure.
func (e *env) connectSubject(ctx context.Context, what string) *suite.Link {
	GinkgoHelper()
	link, err := e.subject.Connect(e.startWait(ctx))
	e.mustStart(what, err)
	if err := e.traces.trace(link.Conn, e.subject.Role()); err != nil {
		link.Close()
		must(what, err)
	}
	return link
}

// mustStart fails the check when err, the error of a step of the
// subject's start bounded by startWait, is not nil: as an error of the
// check when the step ran out of time, as a failure when the subject
// answered wrongly or died.
func (e *env) mustStart(what string, err error) {
	GinkgoHelper()
	if errors.Is(err, context.DeadlineExceeded) {
		e.notStarted(fmt.Sprintf("%s did not start in time: %s failed: %v (--startup-timeout %s bounds each process's start and its first initialize)",
			e.subject.Name(), what, err, e.startup))
	}
	must(what, err)
}

// notStarted ends the check as an error: it did not run, so it neither
// passed nor failed its rules.
func (e *env) notStarted(msg string) {
	GinkgoHelper()
	AddReportEntry(reports.EntryNotStarted, msg, ReportEntryVisibilityNever)
	Fail(msg)
}
