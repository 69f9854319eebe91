package reports

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
)

// Diff is what changed between two runs of the catalogue, a base (the
// target branch's) and a head (the pull request's), check by check, keyed
// by check ID (by name for a check without one). A check "runs" in a run
// when it passed, failed or was interrupted there; skipped, deselected or
// missing, it does not.
type Diff struct {
	Base, Head Run
	// New lists the checks that failed in head, did not fail in base,
	// and are not known failures of head's baseline: what a pull request
	// broke.
	New []Change
	// Fixed lists the checks that failed in base and passed in head.
	Fixed []Change
	// StillFailing lists the checks that failed in both, known or not.
	StillFailing []Change
	// Added lists the checks that run in head and did not in base.
	Added []Change
	// Removed lists the checks that ran in base and do not in head.
	Removed []Change
	// Stale lists head's stale baseline entries: known failures that
	// pass now.
	Stale []StaleEntry
}

// Change is one check of a Diff: its entries in both runs; the zero Check
// on the side where the report does not list it.
type Change struct {
	Base, Head Check
}

// Check is the check as head has it, or as base has it when head does not
// list it.
func (c Change) Check() Check {
	if c.Head.State != "" {
		return c.Head
	}
	return c.Base
}

// StaleEntry is a baseline entry that names a check that passes now.
type StaleEntry struct {
	File  string // the baseline, as head's run named it
	Line  int    // 0 when unknown
	Check string // the entry's check ID
}

// staleProblem matches the problem Judgement.Problems writes for a stale
// entry: "FILE:LINE: stale: ID passes now; take it off the baseline".
var staleProblem = regexp.MustCompile(`^(.*):(\d+): stale: (.+) passes now; take it off the baseline$`)

// runs reports whether c ran, or was running when the run was stopped.
func runs(c Check) bool { return c.Ran() || c.State == StateInterrupted }

// Compare diffs two runs. Each run's checks must have unique keys (see
// [Run.DuplicateCheck]); of a key listed twice, the last counts. A known
// failure (Check.Known, from head's baseline) is never new.
func Compare(base, head Run) Diff {
	d := Diff{Base: base, Head: head}
	before := map[string]Check{}
	for _, c := range base.Checks {
		before[c.Key()] = c
	}
	after := map[string]bool{}
	for _, h := range head.Checks {
		after[h.Key()] = true
		b := before[h.Key()]
		ch := Change{Base: b, Head: h}
		switch {
		case h.Failed() && b.Failed():
			d.StillFailing = append(d.StillFailing, ch)
		case h.Failed() && h.Known == "":
			d.New = append(d.New, ch)
		case b.Failed() && h.State == StatePassed:
			d.Fixed = append(d.Fixed, ch)
		}
		switch {
		case runs(h) && !runs(b):
			d.Added = append(d.Added, ch)
		case runs(b) && !runs(h):
			d.Removed = append(d.Removed, ch)
		}
	}
	for _, b := range base.Checks {
		if !after[b.Key()] && runs(b) {
			d.Removed = append(d.Removed, Change{Base: b})
		}
	}
	for _, p := range head.Problems {
		if m := staleProblem.FindStringSubmatch(p); m != nil {
			line, _ := strconv.Atoi(m[2])
			d.Stale = append(d.Stale, StaleEntry{File: m[1], Line: line, Check: m[3]})
		}
	}
	return d
}

// Broke reports whether head has a new failure of a MUST check, or lost
// the verdict base had (Lost): what makes acpconform diff exit 1. A new
// SHOULD failure is reported, never fatal, as in a run.
func (d Diff) Broke() bool { return d.NewMust() > 0 || d.Lost() != "" }

// Lost says how head came to no verdict where base had one, "" when it
// did not: base checked the subject (conformant or not) and head could
// not run it, checked nothing, or was interrupted. Such a head has no new
// failure because it has no result, which is no pass.
func (d Diff) Lost() string {
	switch {
	case d.Base.Verdict != Conformant && d.Base.Verdict != NotConformant:
		return ""
	case d.Head.Verdict == CouldNotRun, d.Head.Verdict == NothingChecked, d.Head.Verdict == Interrupted:
		return fmt.Sprintf("head %s where base was %s", d.Head.Verdict, d.Base.Verdict)
	}
	return ""
}

// NewMust counts the new failures of MUST checks.
func (d Diff) NewMust() int {
	n := 0
	for _, c := range d.New {
		if c.Head.Must() {
			n++
		}
	}
	return n
}

// DuplicateCheck reports a check key the run lists twice, which no run of
// acpconform writes: "checks 3 and 7 are both TOK-2/leading-zero"; nil
// when every key is unique.
func (r Run) DuplicateCheck() error {
	seen := map[string]int{}
	for i, c := range r.Checks {
		if first, ok := seen[c.Key()]; ok {
			return fmt.Errorf("checks %d and %d are both %q: a report lists each check once", first+1, i+1, elide.Head(c.Key(), 200))
		}
		seen[c.Key()] = i
	}
	return nil
}

// Headline says in a few words what the diff found: "2 new failures, 1
// fixed".
func (d Diff) Headline() string {
	var parts []string
	if lost := d.Lost(); lost != "" {
		parts = append(parts, lost)
	}
	switch n := len(d.New); n {
	case 0:
		parts = append(parts, "no new failure")
	default:
		parts = append(parts, fmt.Sprintf("%d new %s", n, plural(n, "failure", "failures")))
	}
	if n := len(d.Fixed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d fixed", n))
	}
	if n := len(d.Stale); n > 0 {
		parts = append(parts, fmt.Sprintf("%d stale baseline %s", n, plural(n, "entry", "entries")))
	}
	return strings.Join(parts, ", ")
}

// rule is the first rule a check cites, "" for none.
func rule(c Check) string {
	if len(c.Rules) == 0 {
		return ""
	}
	return c.Rules[0]
}

// stateText says a check's state in one run, with its reason, on one
// line, bounded: "failed: the agent reported ...", "not in the report".
func stateText(c Check) string {
	var s string
	switch {
	case c.State == "":
		return "not in the report"
	case c.Failed() && c.Known != "":
		s = c.State + " (known: " + elide.Head(firstLine(c.Known), 200) + ")"
		if f := firstLine(c.Failure); f != "" {
			s += ": " + f
		}
	case c.Failed() || c.State == StateError:
		s = c.State
		if f := firstLine(c.Failure); f != "" {
			s += ": " + f
		}
	case c.State == StateSkipped && c.SkipReason != "":
		s = "skipped: " + firstLine(c.SkipReason)
	default:
		s = c.State
	}
	return elide.Head(s, maxCell)
}

// maxCell bounds the text of one table cell, before it is escaped.
const maxCell = 300
