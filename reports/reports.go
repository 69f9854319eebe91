// Package reports turns the one Ginkgo report of a catalogue run into what
// people and CI read: JUnit XML (Ginkgo's own reporter), a JSON report, a
// Markdown summary fit for a CI job summary, and the exit code.
package reports

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// Report entry names the catalogue attaches to specs.
const (
	EntryRules       = "contract"    // the CONTRACT IDs a spec checks, comma-separated
	EntryTranscript  = "transcript"  // the wire transcript, on failure
	EntryDiagnostics = "diagnostics" // the subject's stderr, on failure
)

// Check is one spec of a run, as reports show it.
type Check struct {
	Name        string   `json:"name"`
	Area        string   `json:"area"`
	Rules       []string `json:"rules"`
	Level       string   `json:"level"` // MUST or SHOULD
	Role        string   `json:"role"`  // agent, client or relay
	State       string   `json:"state"` // passed, failed, skipped, pending
	Seconds     float64  `json:"seconds"`
	Failure     string   `json:"failure,omitempty"`
	Location    string   `json:"location,omitempty"`
	Transcript  string   `json:"transcript,omitempty"`
	Diagnostics string   `json:"diagnostics,omitempty"`
}

// Failed reports whether the check failed in any way (failed, panicked,
// timed out, interrupted, aborted).
func (c Check) Failed() bool { return c.State == "failed" }

// Checks lists the specs of a report, in the order they ran (skipped ones
// by their place in the tree).
func Checks(r types.Report) []Check {
	var out []Check
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		c := Check{
			Name:     s.FullText(),
			Seconds:  s.RunTime.Seconds(),
			State:    state(s.State),
			Location: s.LeafNodeLocation.String(),
		}
		for _, l := range s.Labels() {
			key, value, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			switch key {
			case "rule":
				c.Rules = append(c.Rules, value)
			case "level":
				c.Level = value
			case "role":
				c.Role = value
			case "area":
				c.Area = value
			}
		}
		if s.State.Is(types.SpecStateFailureStates) {
			c.Failure = s.Failure.Message
			if s.Failure.ForwardedPanic != "" {
				c.Failure += ": " + s.Failure.ForwardedPanic
			}
			if s.Failure.Location.FileName != "" {
				c.Location = s.Failure.Location.String()
			}
		}
		for _, e := range s.ReportEntries {
			switch e.Name {
			case EntryTranscript:
				c.Transcript = e.StringRepresentation()
			case EntryDiagnostics:
				c.Diagnostics = e.StringRepresentation()
			}
		}
		out = append(out, c)
	}
	return out
}

func state(s types.SpecState) string {
	switch {
	case s == types.SpecStatePassed:
		return "passed"
	case s == types.SpecStatePending:
		return "pending"
	case s == types.SpecStateSkipped:
		return "skipped"
	default:
		return "failed"
	}
}

// Totals counts checks by state.
type Totals struct {
	Passed     int `json:"passed"`
	Failed     int `json:"failed"`
	MustFailed int `json:"mustFailed"` // failed checks of MUST rules: these decide conformance
	Skipped    int `json:"skipped"`    // skipped and pending: never counted as passed
}

// Count totals a list of checks.
func Count(checks []Check) Totals {
	var t Totals
	for _, c := range checks {
		switch c.State {
		case "passed":
			t.Passed++
		case "failed":
			t.Failed++
			if c.Level != "SHOULD" {
				t.MustFailed++
			}
		default:
			t.Skipped++
		}
	}
	return t
}

// ByArea groups checks by contract area, areas sorted as given.
func ByArea(checks []Check, order []string) []Area {
	index := map[string]int{}
	for i, a := range order {
		index[a] = i
	}
	groups := map[string]*Area{}
	for _, c := range checks {
		g := groups[c.Area]
		if g == nil {
			g = &Area{Name: c.Area}
			groups[c.Area] = g
		}
		g.Checks = append(g.Checks, c)
	}
	out := make([]Area, 0, len(groups))
	for _, g := range groups {
		g.Totals = Count(g.Checks)
		out = append(out, *g)
	}
	sort.SliceStable(out, func(i, j int) bool {
		oi, iok := index[out[i].Name]
		oj, jok := index[out[j].Name]
		if iok != jok {
			return iok
		}
		if oi != oj {
			return oi < oj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Area is the checks of one contract area.
type Area struct {
	Name   string
	Totals Totals
	Checks []Check
}

// ExitCode decides a run's exit code without a baseline: see Decide.
func ExitCode(r types.Report) int {
	code, _ := Decide(r, nil)
	return code
}

// Decide is the one place that decides a run's exit code: 1 when a MUST
// check failed that the baseline does not list, when a baseline entry is
// stale or names no check, or when the run itself broke (a suite node
// failed, an interrupt); 0 otherwise. SHOULD failures and skips never
// change it. It also says why, a line a reason.
func Decide(r types.Report, b *Baseline) (int, []string) {
	problems := b.Judge(Checks(r)).Problems(b.File())
	if suiteBroke(r) {
		problems = append(problems, "the run itself did not complete")
	}
	if len(problems) > 0 {
		return 1, problems
	}
	return 0, nil
}

// suiteBroke reports a failure outside the specs: a suite-level node that
// failed, or an interrupted run.
func suiteBroke(r types.Report) bool {
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt && s.State.Is(types.SpecStateFailureStates) {
			return true
		}
	}
	return r.SpecialSuiteFailureReasons != nil && len(r.SpecialSuiteFailureReasons) > 0
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }
