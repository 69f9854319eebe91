package mutants

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/judge"
	"github.com/acpconform/acpconform/reports"
)

// judgeAgrees judges the traces a live run of the catalogue wrote
// (--traces) with acpconform judge, bin's, and compares the verdicts rule
// by rule with the run's own, doc (zero: a run that failed nothing): one
// judge, two sources. The judge never fails a rule the live run passed,
// and a rule it decides whole it fails whenever the live run failed it.
// It returns the judge's checks that failed.
func judgeAgrees(t *testing.T, bin binary, what, role, dir string, doc reports.JSON) (failed []string) {
	t.Helper()
	if files, err := filepath.Glob(filepath.Join(dir, role+"-*.jsonl")); err != nil || len(files) == 0 {
		t.Fatalf("%s: the run wrote no trace of the %s in %s (%v)", what, role, dir, err)
	}
	path := filepath.Join(t.TempDir(), "judged.json")
	cmd := bin.command(testbound.Context(t), "judge", "--role", role, "--response-timeout", judgeResponse.String(),
		"--json", path, "--junit", "", "--summary", "", "--html", "", dir)
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 && code != reports.ExitNothingChecked {
		t.Fatalf("%s: acpconform judge --role %s exited %d:\n%s", what, role, code, tail(out))
	}
	judged, err := readJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]reports.Check{}
	for _, c := range judged.Checks {
		states[c.ID] = c
	}
	live := map[string][]string{} // rule: the checks of the role that failed it
	for _, c := range doc.Checks {
		if c.Failed() && c.Role == role {
			for _, r := range c.Rules {
				live[r] = append(live[r], c.ID)
			}
		}
	}
	for _, check := range judge.Checks {
		if check.Role != role {
			continue
		}
		c, ok := states[check.ID]
		switch {
		case !ok:
			t.Fatalf("%s: acpconform judge reported no %s", what, check.ID)
		case c.Failed() && live[check.Rule] == nil:
			t.Errorf("%s: the judge fails %s (%s) on the run's traces, where the live run passed the rule:\n%s", what, check.Rule, check.ID, c.Failure)
		case check.Whole && live[check.Rule] != nil && !c.Failed():
			t.Errorf("%s: the live run failed %s (%s), which the judge decides whole, but the judge says %s of the run's traces", what, check.Rule, strings.Join(slices.Compact(live[check.Rule]), ", "), c.State)
		case !check.Whole && live[check.Rule] != nil && !c.Failed():
			t.Logf("PARTIAL %s: live failed %s (%s); the judge's %s says %s", what, check.Rule, strings.Join(slices.Compact(live[check.Rule]), ", "), check.ID, c.State)
		}
		if c.Failed() {
			failed = append(failed, check.ID)
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
