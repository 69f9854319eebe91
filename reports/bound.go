package reports

import "github.com/acpconform/acpconform/internal/elide"

// readSlack is what a report read back may hold past a bound: the marks a
// run's own elisions and transcript headings add. A genuine report is read
// as it was written.
const readSlack = 1 << 10

// bounded is a run read from a report, which anyone may have written,
// held to what a run keeps of the text its subject controls: each check's
// failure, transcript and stderr to MaxFailure, MaxTranscript and
// MaxStderr, as FromGinkgo cuts them, and every text a report holds on one
// line (names, IDs, reasons, how a process ended) to one line (see
// elide.EscapeLine) of at most MaxFailure bytes. The writers escape the
// rest as they show it.
func bounded(r Run) Run {
	for _, f := range []*string{&r.Subject, &r.Command, &r.Version, &r.Commit, &r.Contract, &r.Schema, &r.Reason, &r.Selection.Catalogue, &r.Selection.Filter} {
		*f = oneLine(*f)
	}
	r.Problems = boundedLines(r.Problems)
	r.Dealt = boundedLines(r.Dealt)
	checks := make([]Check, len(r.Checks))
	for i, c := range r.Checks {
		for _, f := range []*string{&c.ID, &c.Name, &c.Area, &c.Level, &c.Role, &c.SkipReason, &c.Known, &c.Location, &c.FailedAt, &c.Process, &c.Rerun, &c.Again, &c.NotOffered} {
			*f = oneLine(*f)
		}
		c.Rules = boundedLines(c.Rules)
		c.Failure = head(c.Failure, MaxFailure)
		c.Transcript = tail(c.Transcript, MaxTranscript)
		c.Diagnostics = tail(c.Diagnostics, MaxStderr)
		checks[i] = c
	}
	r.Checks = checks
	return r
}

func oneLine(s string) string { return elide.EscapeLine(head(s, MaxFailure)) }

func boundedLines(lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = oneLine(l)
	}
	return out
}

// head and tail are elide's, with room for a run's own marks.
func head(s string, max int) string {
	if len(s) <= max+readSlack {
		return s
	}
	return elide.Head(s, max)
}

func tail(s string, max int) string {
	if len(s) <= max+readSlack {
		return s
	}
	return elide.Tail(s, max)
}
