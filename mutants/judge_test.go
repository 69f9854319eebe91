package mutants

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"os"

	"github.com/acpconform/acpconform/judge"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/trace"
)

// judgeAgrees judges the traces a live run of the catalogue wrote
// (--traces) as acpconform judge does, and compares the verdicts rule by
// rule with the run's own, doc (zero: a run that failed nothing): one
// judge, two sources. The judge never fails a rule the live run passed,
// and a rule it decides whole it fails whenever the live run failed it.
func judgeAgrees(t *testing.T, what, role string, dir string, doc reports.JSON) (failed []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, role+"-*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: the run wrote no trace of the %s in %s (%v)", what, role, dir, err)
	}
	var sessions []judge.Session
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := trace.Read(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %s: %v", what, file, err)
		}
		sessions = append(sessions, judge.FromTrace(filepath.Base(file), tr))
	}
	live := map[string][]string{} // rule: the checks of the role that failed it
	for _, c := range doc.Checks {
		if c.Failed() && c.Role == role {
			for _, r := range c.Rules {
				live[r] = append(live[r], c.ID)
			}
		}
	}
	for _, r := range judge.Judge(judge.Options{Role: role, Response: judgeResponse}, sessions...) {
		switch {
		case r.State == judge.Failed && live[r.Rule] == nil:
			t.Errorf("%s: the judge fails %s (%s) on the run's traces, where the live run passed the rule:\n%s", what, r.Rule, r.ID, strings.Join(r.Why, "\n"))
		case r.Whole && live[r.Rule] != nil && r.State != judge.Failed:
			t.Errorf("%s: the live run failed %s (%s), which the judge decides whole, but the judge says %s of the run's traces", what, r.Rule, strings.Join(slices.Compact(live[r.Rule]), ", "), r.State)
		}
		if !r.Whole && live[r.Rule] != nil && r.State != judge.Failed {
			t.Logf("PARTIAL %s: live failed %s (%s); the judge's %s says %s", what, r.Rule, strings.Join(slices.Compact(live[r.Rule]), ", "), r.ID, r.State)
		}
		if r.State == judge.Failed {
			failed = append(failed, r.ID)
		}
	}
	return failed
}

// judgeResponse is the judge's wait for an answer to a cancel: below the
// 2 s the mutants' runs wait (--response-timeout), counted from before the
// request that the cancel follows, so that a trace of a client that never
// answers goes on past it however busy the machine.
const judgeResponse = time.Second

// judgeKilled is, for each of the judge's checks, the mutants whose
// traces it failed.
var (
	judgeKilledMu sync.Mutex
	judgeKilled   = map[string][]string{}
)

func judgeKills(mutant string, checks []string) {
	judgeKilledMu.Lock()
	defer judgeKilledMu.Unlock()
	for _, c := range checks {
		judgeKilled[c] = append(judgeKilled[c], mutant)
	}
}

// unkilledJudgeChecks are the judge's checks no mutant of the reference
// breaks on the wire, each with why.
var unkilledJudgeChecks = map[string]string{}

// everyJudgeCheckKills holds that each of the judge's checks can fail:
// the traces of some mutant's run fail it.
func everyJudgeCheckKills(t *testing.T) {
	t.Helper()
	judgeKilledMu.Lock()
	defer judgeKilledMu.Unlock()
	for _, c := range judge.Checks {
		if why, ok := unkilledJudgeChecks[c.ID]; ok {
			t.Logf("the judge's %s is failed by no mutant: %s", c.ID, why)
			continue
		}
		if len(judgeKilled[c.ID]) == 0 {
			t.Errorf("no mutant's traces fail the judge's check %s: a check that cannot fail", c.ID)
		}
	}
}
