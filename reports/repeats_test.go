package reports

import (
	"fmt"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// spec is a check's report as Ginkgo gives it as the check ends.
func spec(id, rule string, state types.SpecState, failure string) types.SpecReport {
	return types.SpecReport{
		LeafNodeType: types.NodeTypeIt, LeafNodeText: id, State: state,
		LeafNodeLabels: []string{"check:" + id, "rule:" + rule, "role:agent", "area:X", "level:MUST"},
		Failure:        types.Failure{Message: failure},
	}
}

// ended is s with its subject's process ended during the check.
func ended(s types.SpecReport) types.SpecReport {
	s.ReportEntries = append(s.ReportEntries, types.ReportEntry{Name: EntryProcess, Value: types.WrapEntryValue("exited with status 0 during the check")})
	return s
}

// TestRepeatsStopsAtTheFifthRuleInARow: one cause failing the checks of
// five rules in a row stops the run; many checks of one rule, a pass
// between, or another cause do not.
func TestRepeatsStopsAtTheFifthRuleInARow(t *testing.T) {
	crash := "the agent exited with status 1 during the check"
	for _, tc := range []struct {
		how   string
		specs []types.SpecReport
		stop  bool
	}{
		{"five rules, one cause", []types.SpecReport{
			spec("A-1/a", "A-1", types.SpecStateFailed, crash), spec("A-2/a", "A-2", types.SpecStateFailed, crash),
			spec("A-3/a", "A-3", types.SpecStateSkipped, "needs the reference's Go API"),
			spec("A-3/b", "A-3", types.SpecStateFailed, crash), spec("A-4/a", "A-4", types.SpecStateFailed, crash),
			spec("A-5/a", "A-5", types.SpecStateFailed, crash)}, true},
		{"one reason, the process ending in some", []types.SpecReport{
			spec("A-1/a", "A-1", types.SpecStateFailed, "askChoice is not written yet"), spec("A-2/a", "A-2", types.SpecStateFailed, "askChoice is not written yet"),
			ended(spec("A-3/a", "A-3", types.SpecStateFailed, "askChoice is not written yet")),
			spec("A-4/a", "A-4", types.SpecStateFailed, "askChoice is not written yet"),
			ended(spec("A-5/a", "A-5", types.SpecStateFailed, "askChoice is not written yet"))}, true},
		{"four rules", []types.SpecReport{
			spec("A-1/a", "A-1", types.SpecStateFailed, crash), spec("A-2/a", "A-2", types.SpecStateFailed, crash),
			spec("A-3/a", "A-3", types.SpecStateFailed, crash), spec("A-4/a", "A-4", types.SpecStateFailed, crash),
			spec("A-4/b", "A-4", types.SpecStateFailed, crash)}, false},
		{"a pass between", []types.SpecReport{
			spec("A-1/a", "A-1", types.SpecStateFailed, crash), spec("A-2/a", "A-2", types.SpecStateFailed, crash),
			spec("A-3/a", "A-3", types.SpecStatePassed, ""),
			spec("A-4/a", "A-4", types.SpecStateFailed, crash), spec("A-5/a", "A-5", types.SpecStateFailed, crash),
			spec("A-6/a", "A-6", types.SpecStateFailed, crash)}, false},
		{"another cause between", []types.SpecReport{
			spec("A-1/a", "A-1", types.SpecStateFailed, crash), spec("A-2/a", "A-2", types.SpecStateFailed, crash),
			spec("A-3/a", "A-3", types.SpecStateFailed, `the answer has no member "action"`),
			spec("A-4/a", "A-4", types.SpecStateFailed, crash), spec("A-5/a", "A-5", types.SpecStateFailed, crash),
			spec("A-6/a", "A-6", types.SpecStateFailed, crash)}, false},
	} {
		var r Repeats
		for _, s := range tc.specs {
			r.Ended(s)
		}
		if got := r.Stop() != ""; got != tc.stop {
			t.Errorf("%s: stop %v, want %v (%q)", tc.how, got, tc.stop, r.Stop())
		}
	}
	var r Repeats
	for i := range 40 { // TOK-2's tokens: one rule
		r.Ended(spec(fmt.Sprintf("TOK-2/t%d", i), "TOK-2", types.SpecStateFailed, "the agent accepted the token"))
	}
	if why := r.Stop(); why != "" {
		t.Errorf("40 failures of one rule stop the run: %s", why)
	}
}
