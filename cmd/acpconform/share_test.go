package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// TestSharingKeepsTheVerdicts: against the reference agent over stdio
// (acpconform-reference-agent),
// every check passes and has the same state whether the checks share
// processes or each has its own (--isolate), and sharing starts far fewer
// processes.
func TestSharingKeepsTheVerdicts(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	agent, _ := slim(t) // the agent alone: --isolate starts it once per check
	dir := t.TempDir()
	count := filepath.Join(dir, "count.sh") // logs each start of the agent
	starts := filepath.Join(dir, "starts")
	if err := os.WriteFile(count, []byte("#!/bin/sh\necho >> \""+starts+"\"\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var runs [2][]reports.Check
	var started [2]int
	for i, mode := range []string{"--isolate", "--isolate=false"} {
		_ = os.Remove(starts)
		out := filepath.Join(dir, mode+".json")
		cmd := exec.Command(bin, "agent", mode, "--json", out, "--junit", "", "--summary", "", "--", count, agent)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("acpconform agent %s: %v\n%s", mode, err, b)
		}
		doc := readJSON(t, out)
		if tt := doc.Totals; tt.Passed < 100 || tt.Failed != 0 || !doc.Succeeded {
			t.Errorf("%s: report totals %+v, succeeded %v", mode, tt, doc.Succeeded)
		}
		runs[i] = doc.Checks
		log, _ := os.ReadFile(starts)
		started[i] = len(log)
		for _, c := range doc.Checks {
			if c.Rerun != "" {
				t.Errorf("%s %s: %s", mode, c.ID, c.Rerun)
			}
		}
	}
	for _, d := range reports.StateDifferences(runs[0], runs[1]) {
		t.Errorf("isolated, then shared: %s", d)
	}
	if started[1]*3 > started[0] {
		t.Errorf("shared, the run started %d agent processes; isolated, %d: sharing should start far fewer", started[1], started[0])
	}
	t.Logf("agent processes started: %d isolated, %d shared (spares included)", started[0], started[1])
}
