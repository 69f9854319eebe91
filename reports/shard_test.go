package reports_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

func TestParseShard(t *testing.T) {
	if s, err := reports.ParseShard("2/4"); err != nil || s != (reports.Shard{Index: 2, Count: 4}) || s.String() != "2/4" {
		t.Errorf("ParseShard(2/4) = %v, %v", s, err)
	}
	if s, err := reports.ParseShard("64/64"); err != nil || s.Count != reports.MaxShards {
		t.Errorf("ParseShard(64/64) = %v, %v", s, err)
	}
	for in, want := range map[string]string{
		"0/3": "the index is from 1", "4/3": "the index is from 1", "1/0": "the count is from 1 to 64",
		"1/65": "the count is from 1 to 64", "-1/3": "the index is from 1", "x": "not a shard such as 2/4",
		"1/": "not a shard", "1/3/4": "not a shard", "": "not a shard",
	} {
		if _, err := reports.ParseShard(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseShard(%q) = %v, want an error saying %q", in, err, want)
		}
	}
}

// check is a check of the shard tests, by its ID.
func check(id, state string) reports.Check {
	c := reports.Check{ID: id, Name: "check " + id, Area: "TOK", Rules: []string{strings.Split(id, "/")[0]}, Level: "MUST", Role: "agent", State: state}
	if state == reports.StateFailed {
		c.Failure = "it failed"
	}
	return c
}

// shardRun is shard i of n of one run, its checks with the states given.
func shardRun(i, n int, states ...string) reports.ShardRun {
	run := reports.Run{Subject: "my-agent", Command: "./my-agent", Version: "v1.2.3", Contract: "r1",
		Verdict: reports.Conformant, Shard: reports.Shard{Index: i, Count: n}, Seconds: float64(i)}
	for k, st := range states {
		run.Checks = append(run.Checks, check("TOK-"+string(rune('1'+k))+"/c", st))
	}
	return reports.ShardRun{File: filepath.Join("shard-"+string(rune('0'+i)), "report.json"), Run: run}
}

const (
	pass = reports.StatePassed
	fail = reports.StateFailed
	skip = reports.StateSkipped
	desl = reports.StateDeselected
)

func TestMergeTakesEachCheckFromItsShard(t *testing.T) {
	a := shardRun(1, 2, pass, desl, fail, desl)
	b := shardRun(2, 2, desl, skip, desl, desl)  // the fourth: no shard selected it
	a.Run.Checks[2].Known = "a shard's baseline" // the merge's own baseline judges
	run, interruption, err := reports.Merge([]reports.ShardRun{b, a})
	if err != nil || interruption != "" {
		t.Fatalf("Merge: %v, %q", err, interruption)
	}
	var got []string
	for _, c := range run.Checks {
		got = append(got, c.ID+" "+c.State+" "+c.Known)
	}
	if want := "TOK-1/c passed |TOK-2/c skipped |TOK-3/c failed |TOK-4/c deselected "; strings.Join(got, "|") != want {
		t.Errorf("merged checks %q, want %q", strings.Join(got, "|"), want)
	}
	if run.Shard != (reports.Shard{}) || run.Subject != "my-agent" || run.Version != "v1.2.3" || run.Seconds != 2 || run.Verdict != "" {
		t.Errorf("merged run %+v: want the whole run of my-agent, the longest shard's seconds, no verdict yet", run)
	}
	reports.Decide(&run, nil, interruption, len(run.Problems) > 0)
	if run.Verdict != reports.NotConformant {
		t.Errorf("verdict %s, want not conformant", run.Verdict)
	}
}

func TestMergeRefusesWhatIsNotOneRun(t *testing.T) {
	other := func(f func(*reports.Run)) reports.ShardRun {
		s := shardRun(2, 3, desl, pass, desl)
		f(&s.Run)
		return s
	}
	for _, tc := range []struct {
		shards []reports.ShardRun
		want   string
	}{
		{[]reports.ShardRun{shardRun(1, 3, pass, desl, desl), shardRun(3, 3, desl, desl, pass)}, "shard 2 of 3 is missing"},
		{[]reports.ShardRun{shardRun(2, 3, desl, pass, desl)}, "shards 1 and 3 of 3 are missing"},
		{[]reports.ShardRun{shardRun(1, 2, pass, desl), shardRun(1, 2, pass, desl)}, "shard-1/report.json: shard 1 of 2, and so is shard-1/report.json"},
		{[]reports.ShardRun{shardRun(1, 3, pass, desl, desl), shardRun(2, 2, desl, pass)}, `shard-2/report.json: shards "2", and shard-1/report.json has "3"`},
		{[]reports.ShardRun{shardRun(1, 3, pass, desl, desl), other(func(r *reports.Run) { r.Subject = "your-agent" })}, `subject "your-agent", and shard-1/report.json has "my-agent"`},
		{[]reports.ShardRun{shardRun(1, 3, pass, desl, desl), other(func(r *reports.Run) { r.Command = "./b" })}, `command "./b"`},
		{[]reports.ShardRun{shardRun(1, 3, pass, desl, desl), other(func(r *reports.Run) { r.Version = "v9" })}, `acpconform version "v9"`},
		{[]reports.ShardRun{shardRun(1, 3, pass, desl, desl), other(func(r *reports.Run) { r.Contract = "r9" })}, `contract revision "r9"`},
		{[]reports.ShardRun{shardRun(1, 2, pass, desl), {File: "whole.json", Run: reports.Run{Subject: "my-agent"}}}, "whole.json: not the report of a shard"},
		{[]reports.ShardRun{shardRun(1, 2, pass, desl), shardRun(2, 2, desl, pass, pass)}, "shard-2/report.json: 3 checks, and shard-1/report.json has 2"},
		{[]reports.ShardRun{shardRun(1, 2, pass, pass), shardRun(2, 2, desl, pass)}, "shard-1/report.json and shard-2/report.json both ran TOK-2/c"},
		{nil, "no report to merge"},
	} {
		if _, _, err := reports.Merge(tc.shards); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Merge: %v, want an error saying %q", err, tc.want)
		}
	}
	renamed := shardRun(2, 2, desl, pass)
	renamed.Run.Checks[1].ID = "TOK-9/x"
	if _, _, err := reports.Merge([]reports.ShardRun{shardRun(1, 2, pass, desl), renamed}); err == nil || !strings.Contains(err.Error(), "check 2 is TOK-9/x, and in shard-1/report.json it is TOK-2/c") {
		t.Errorf("Merge of different catalogues: %v", err)
	}
}

func TestMergeNamesTheShardThatCouldNotRunOrWasInterrupted(t *testing.T) {
	down := shardRun(2, 3)
	down.Run.Verdict, down.Run.Reason = reports.CouldNotRun, "the process exited with status 1"
	down.Run.Checks = []reports.Check{reports.StartUp("my-agent", "agent", "exit status 1")}
	run, _, err := reports.Merge([]reports.ShardRun{shardRun(1, 3, pass, desl, desl), down, shardRun(3, 3, desl, desl, pass)})
	if err != nil {
		t.Fatal(err)
	}
	reports.Decide(&run, nil, "", false)
	if run.Verdict != reports.CouldNotRun || run.Reason != "shard 2 of 3: the process exited with status 1" || len(run.Checks) != 1 || run.Checks[0].Area != "start-up" {
		t.Errorf("merged run %s (%s), %d checks; want could not run, naming shard 2 of 3, with its start-up check", run.Verdict, run.Reason, len(run.Checks))
	}

	stopped := shardRun(3, 3)
	stopped.Run.Verdict, stopped.Run.Reason = reports.Interrupted, "interrupted, while the subject was starting"
	run, interruption, err := reports.Merge([]reports.ShardRun{shardRun(1, 3, pass, desl, desl), shardRun(2, 3, desl, pass, desl), stopped})
	if err != nil {
		t.Fatal(err)
	}
	reports.Decide(&run, nil, interruption, len(run.Problems) > 0)
	if run.Verdict != reports.Interrupted || run.Reason != "shard 3 of 3: interrupted, while the subject was starting" || len(run.Checks) != 3 {
		t.Errorf("merged run %s (%s), %d checks; want interrupted, naming shard 3 of 3", run.Verdict, run.Reason, len(run.Checks))
	}

	broke := shardRun(2, 2, desl, pass)
	broke.Run.Problems = []string{reports.ProblemBroke}
	run, _, err = reports.Merge([]reports.ShardRun{shardRun(1, 2, pass, desl), broke})
	if err != nil {
		t.Fatal(err)
	}
	reports.Decide(&run, nil, "", len(run.Problems) > 0)
	if run.Verdict != reports.NotConformant || run.Reason != reports.ProblemBroke {
		t.Errorf("a shard whose run broke: merged %s (%s), want not conformant", run.Verdict, run.Reason)
	}
}

// TestABaselineSpansShards: in a shard, an entry for a check of another
// shard is neither stale nor naming no check.
func TestABaselineSpansShards(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baseline.yaml")
	os.WriteFile(path, []byte("known:\n  - check: TOK-3/c\n    reason: known\n"), 0o644)
	b, err := reports.LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	run := shardRun(1, 2, pass, desl, desl).Run
	run.Verdict = ""
	reports.Decide(&run, b, "", false)
	if run.Verdict != reports.Conformant || len(run.Problems) > 0 {
		t.Errorf("shard 1 with an entry of shard 2's check: %s, %q; want conformant", run.Verdict, run.Problems)
	}
}

func TestReadJSONReadsWhatWriteJSONWrites(t *testing.T) {
	s := shardRun(2, 4, desl, fail)
	s.Run.Reason, s.Run.Problems = "1 MUST check failed", []string{"new failure: x"}
	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, s.Run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"shard": {`) || !strings.Contains(buf.String(), `"index": 2`) {
		t.Errorf("report.json lacks the shard:\n%s", buf.String())
	}
	got, err := reports.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Shard != s.Run.Shard || got.Subject != "my-agent" || got.Command != "./my-agent" || got.Verdict != reports.Conformant ||
		len(got.Checks) != 2 || got.Checks[1].Failure != "it failed" || got.Problems[0] != "new failure: x" {
		t.Errorf("read back %+v", got)
	}

	// A report of a whole run, as acpconform wrote before shards, reads
	// as a whole run.
	old := `{"acpconform": 2, "subject": "a", "verdict": "conformant", "reason": "r", "succeeded": true, "seconds": 1, "totals": {}, "checks": [{"id": "TOK-1/c", "name": "n", "area": "TOK", "rules": ["TOK-1"], "level": "MUST", "role": "agent", "state": "passed", "seconds": 0}]}`
	if got, err := reports.ReadJSON(strings.NewReader(old)); err != nil || got.Shard.Count != 0 || len(got.Checks) != 1 {
		t.Errorf("an older report.json: %+v, %v", got, err)
	}
	for in, want := range map[string]string{
		"":                                     "empty, not a JSON report",
		old[:len(old)/2]:                       "truncated",
		"<?xml version=\"1.0\"?>":              "not JSON",
		`{"acpconform": "2"}`:                  "not an acpconform JSON report",
		`{"subject": "a"}`:                     `it has no "acpconform" format`,
		`{"acpconform": 1}`:                    "a JSON report of format 1; this acpconform reads format 2",
		`{"acpconform": 2, "verdict": "fine"}`: `verdict "fine" is none of acpconform's`,
		old + old:                              "more follows it",
		strings.Replace(old, `"passed"`, `"great"`, 1):                                     `check 1 (TOK-1/c): state "great"`,
		strings.Replace(old, `"checks"`, `"shard": {"index": 5, "count": 4}, "checks"`, 1): "shard: shard 5 of 4",
	} {
		if _, err := reports.ReadJSON(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadJSON(%.40q) = %v, want an error saying %q", in, err, want)
		}
	}
}
