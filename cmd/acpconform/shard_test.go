package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// shards runs acpconform with --shard i/n for each i, each its own
// process and reports folder, as CI's parallel jobs do.
func shards(t *testing.T, n int, args ...string) []result {
	t.Helper()
	var out []result
	for i := 1; i <= n; i++ {
		sharded := append([]string{args[0], "--shard", reports.Shard{Index: i, Count: n}.String()}, args[1:]...)
		out = append(out, acpconform(t, nil, sharded...))
	}
	return out
}

// merge runs acpconform merge on the shards' report.json.
func merge(t *testing.T, runs []result, flags ...string) result {
	t.Helper()
	args := append([]string{"merge"}, flags...)
	for _, r := range runs {
		args = append(args, filepath.Join(r.dir, "report.json"))
	}
	return acpconform(t, nil, args...)
}

// states lists a report's checks as ID, name and state, in order.
func states(checks []reports.Check) []string {
	var out []string
	for _, c := range checks {
		out = append(out, c.ID+" "+c.Name+": "+c.State)
	}
	return out
}

// expectSameChecks: the merged report holds the unsharded run's checks,
// in its order, each in the state it had there, and each ran (was not
// deselected) in exactly one shard, which deselected it elsewhere.
func expectSameChecks(t *testing.T, whole, merged result, parts []result) {
	t.Helper()
	if got, want := states(merged.report.Checks), states(whole.report.Checks); !slices.Equal(got, want) {
		t.Errorf("merged checks differ from the unsharded run's:\nmerged: %q\nwhole:  %q", got, want)
	}
	for i, c := range whole.report.Checks {
		var in []int
		for k, p := range parts {
			if len(p.report.Checks) != len(whole.report.Checks) {
				t.Fatalf("shard %d reports %d checks, the unsharded run %d", k+1, len(p.report.Checks), len(whole.report.Checks))
			}
			if p.report.Checks[i].State != reports.StateDeselected {
				in = append(in, k+1)
			}
		}
		if c.State != reports.StateDeselected && len(in) != 1 {
			t.Errorf("%s ran in shards %v, want exactly one", c.ID, in)
		}
	}
	if merged.report.Verdict != whole.report.Verdict || merged.code != whole.code || merged.report.Shard != nil {
		t.Errorf("merged: %s, exit %d, shard %v; unsharded: %s, exit %d", merged.report.Verdict, merged.code, merged.report.Shard, whole.report.Verdict, whole.code)
	}
}

// TestShardsMergeLikeOneRun splits acpconform run in three and merges
// the shards: the same checks, states and verdict as one machine's run.
func TestShardsMergeLikeOneRun(t *testing.T) {
	t.Parallel()
	whole := acpconform(t, nil, "run")
	expectCode(t, whole, 0)
	parts := shards(t, 3, "run")
	sizes := map[int]bool{}
	for i, p := range parts {
		expectCode(t, p, 0)
		if p.report.Shard == nil || *p.report.Shard != (reports.Shard{Index: i + 1, Count: 3}) {
			t.Errorf("shard %d's report.json records shard %v", i+1, p.report.Shard)
		}
		if !strings.Contains(p.stdout, "(shard "+string(rune('1'+i))+" of 3)") {
			t.Errorf("shard %d's summary does not say which shard it is:\n%s", i+1, p.stdout)
		}
		t := p.report.Totals
		sizes[t.Passed+t.Failed+t.Skipped] = true
	}
	// Round-robin over about 190 checks: the shares differ by one at most.
	if len(sizes) > 2 {
		t.Errorf("unbalanced shards: %v checks", sizes)
	}
	merged := merge(t, parts)
	expectSameChecks(t, whole, merged, parts)
	if !strings.Contains(merged.stdout, "is conformant") || strings.Contains(merged.stdout, "(shard") {
		t.Errorf("merge's summary:\n%s", merged.stdout)
	}
	for _, f := range []string{"junit.xml", "summary.md"} {
		if _, err := os.Stat(filepath.Join(merged.dir, f)); err != nil {
			t.Errorf("merge wrote no %s: %v", f, err)
		}
	}

	// Another process deals each shard the same share: acpconform list
	// --shard, which deals as run does and runs nothing.
	bin, _ := binaries(t)
	for i := range parts {
		out, err := exec.Command(bin, "list", "--shard", reports.Shard{Index: i + 1, Count: 3}.String()).Output()
		if err != nil {
			t.Fatalf("acpconform list --shard %d/3: %v", i+1, err)
		}
		var listed, ran []string
		for _, line := range strings.Split(string(out), "\n")[1:] {
			if f := strings.Fields(line); len(f) > 0 {
				listed = append(listed, f[0])
			}
		}
		for _, c := range parts[i].report.Checks {
			if c.State != reports.StateDeselected { // another shard's
				ran = append(ran, c.ID)
			}
		}
		if !slices.Equal(listed, ran) {
			t.Errorf("shard %d of 3: list deals %v, run ran %v", i+1, listed, ran)
		}
	}
}

// TestShardsOfABrokenAgent: the mutant's failures survive the split, and
// a baseline is judged over the whole run, not one shard's share.
func TestShardsOfABrokenAgent(t *testing.T) {
	t.Parallel()
	_, mut := binaries(t)
	agent := []string{"agent", "--id", "TOK-1,TOK-2", "--response-timeout", "2s", "--", mut, "reference-agent"}
	whole := acpconform(t, nil, agent...)
	expectCode(t, whole, 1)
	parts := shards(t, 3, agent...)
	merged := merge(t, parts)
	expectSameChecks(t, whole, merged, parts)
	if !merged.failedRules()["TOK-2"] || !strings.Contains(merged.stdout, "FAILED TOK-2/") {
		t.Errorf("merged failures %v; summary:\n%s", merged.failedRules(), merged.stdout)
	}

	// A baseline of the whole run's failures: each shard passes with it,
	// its entries for other shards' checks neither stale nor unknown.
	baseline := filepath.Join(t.TempDir(), "baseline.yaml")
	if code := acpconform(t, nil, append([]string{"agent", "--write-baseline", baseline}, agent[1:]...)...).code; code != 1 {
		t.Fatalf("writing the baseline: exit %d", code)
	}
	giveReasons(t, baseline)
	known := shards(t, 3, append([]string{"agent", "--baseline", baseline}, agent[1:]...)...)
	for i, p := range known {
		expectCode(t, p, 0)
		if len(p.report.Problems) > 0 {
			t.Errorf("shard %d: %q", i+1, p.report.Problems)
		}
	}
	expectCode(t, merge(t, known, "--baseline", baseline), 0)
	expectCode(t, merge(t, known), 1) // the shards' baseline is not carried over
}

// TestMergeRefusesOtherRuns: a missing shard, a shard twice, shards of
// different subjects and files that are no shard's report are usage
// errors naming the file and why.
func TestMergeRefusesOtherRuns(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	run := shards(t, 2, "run", "--id", "TOK-1")
	agent := shards(t, 2, "agent", "--id", "TOK-1", "--", bin, "reference-agent")
	file := func(r result) string { return filepath.Join(r.dir, "report.json") }
	notJSON := filepath.Join(t.TempDir(), "junit.xml")
	os.WriteFile(notJSON, []byte("<?xml version=\"1.0\"?>\n<testsuites/>\n"), 0o644)
	data, _ := os.ReadFile(file(run[0]))
	truncated := filepath.Join(t.TempDir(), "report.json")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{file(run[0])}, "shard 2 of 2 is missing"},
		{[]string{file(run[0]), file(run[0]), file(run[1])}, file(run[0]) + ": shard 1 of 2, and so is " + file(run[0])},
		{[]string{file(run[0]), file(agent[1])}, file(agent[1]) + ": subject "},
		{[]string{file(run[0]), notJSON}, notJSON + ":1: not JSON"}, // the line where the JSON went wrong
		{[]string{file(run[0]), truncated}, truncated + ": truncated"},
		{[]string{file(run[0]), filepath.Join(t.TempDir(), "none.json")}, "none.json: no such file"},
		{[]string{file(run[0]), "/dev/zero"}, "/dev/zero: not a regular file"},
		{nil, "name the report.json of every shard"},
	} {
		var stdout, stderr bytes.Buffer
		code := run2(append([]string{"merge", "--junit", "", "--json", "", "--summary", ""}, tc.files...), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("merge %q: exit %d, stderr %q; want 2 and one line saying %q", tc.files, code, stderr.String(), tc.want)
		}
	}
}

// TestMergeRefusesTamperedShards: merge trusts no shard to have run its
// share. Shard 2 of a genuine run, edited as someone could, or run with
// another selection, is a usage error naming its file and why.
func TestMergeRefusesTamperedShards(t *testing.T) {
	t.Parallel()
	parts := shards(t, 2, "run", "--check", "VAL-*")
	for _, p := range parts {
		expectCode(t, p, 0)
	}
	expectCode(t, merge(t, parts), 0) // as they are
	file := func(r result) string { return filepath.Join(r.dir, "report.json") }
	// Each check dealt to shard 2 is an index in its checks.
	var dealt []int
	for i, c := range parts[1].report.Checks {
		if c.State != reports.StateDeselected {
			dealt = append(dealt, i)
		}
	}
	if len(dealt) != 8 {
		t.Fatalf("shard 2 of 2 ran %d of the 16 VAL checks, want 8", len(dealt))
	}
	first := parts[1].report.Checks[dealt[0]]
	// tampered writes shard 2's report.json as edit leaves it.
	tampered := func(edit func(doc map[string]any, checks []any)) string {
		data, err := os.ReadFile(file(parts[1]))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		edit(doc, doc["checks"].([]any))
		if data, err = json.Marshal(doc); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "report.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	dealtCheck := func(checks []any) map[string]any { return checks[dealt[0]].(map[string]any) }
	other := acpconform(t, nil, "run", "--shard", "2/2", "--check", "VAL-5*")
	expectCode(t, other, 0)
	for _, tc := range []struct {
		name string
		file string
		want string
	}{
		{"another selection", file(other), `: selection "(/^check:VAL-5.*$/) && `},
		{"the empty shard", tampered(func(doc map[string]any, _ []any) {
			doc["checks"] = []any{}
			delete(doc, "dealt")
		}), ": shard 2 of 2, conformant, yet it lists none of the 8 checks dealt to it"},
		{"no checks", tampered(func(doc map[string]any, _ []any) { doc["checks"] = []any{} }),
			": shard 2 of 2 was dealt " + first.ID + " and does not report it run"},
		{"a dealt check missing", tampered(func(doc map[string]any, checks []any) {
			doc["checks"] = slices.Delete(checks, dealt[0], dealt[0]+1)
		}), ": shard 2 of 2 was dealt " + first.ID + " and does not report it run"},
		{"a dealt check deselected", tampered(func(_ map[string]any, checks []any) { dealtCheck(checks)["state"] = reports.StateDeselected }),
			": shard 2 of 2 was dealt " + first.ID + " and does not report it run"},
		{"another share", tampered(func(doc map[string]any, _ []any) { doc["dealt"] = *parts[0].report.Dealt }),
			": shard 2 of 2 was dealt [\"" + (*parts[0].report.Dealt)[0] + "\""},
		{"a forged check", tampered(func(_ map[string]any, checks []any) { dealtCheck(checks)["id"] = "VAL-1/forged" }),
			fmt.Sprintf(`: check %d: "VAL-1/forged", and merge's own catalogue has %s there`, dealt[0]+1, first.ID)},
		{"a level changed", tampered(func(_ map[string]any, checks []any) { dealtCheck(checks)["level"] = "SHOULD" }),
			fmt.Sprintf(`: check %d: %s cites ["%s"] at level "SHOULD", and merge's own catalogue %s at MUST`, dealt[0]+1, first.ID, first.Rules[0], first.Rules[0])},
		{"a rule that does not exist", tampered(func(_ map[string]any, checks []any) { dealtCheck(checks)["rules"] = []string{first.Rules[0], "VAL-99"} }),
			fmt.Sprintf(`: check %d: %s cites ["%s" "VAL-99"]`, dealt[0]+1, first.ID, first.Rules[0])},
		{"the old format", tampered(func(doc map[string]any, _ []any) {
			delete(doc, "selection")
			delete(doc, "dealt")
		}), ": a shard's report without its selection and dealt checks, from an acpconform older than this merge: run the shards again with this one"},
	} {
		r := acpconform(t, nil, "merge", file(parts[0]), tc.file) // its own process: it previews the catalogue
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.file+tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("merge with %s: exit %d, stderr %q; want 2 and one line saying %q", tc.name, r.code, r.stderr, tc.file+tc.want)
		}
	}
}

// TestShardsOfEachCatalogue: the shards of a client's and a relay's run
// merge as one run of theirs, and those of an agent that asks nothing
// merge as nothing checked, naming the shard.
func TestShardsOfEachCatalogue(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	_, client := slim(t)
	for _, args := range [][]string{
		{"client", "--", client},
		{"relay", "--", bin, "mirror", "{url}", "--unstable-protocol"},
	} {
		whole := acpconform(t, nil, args...)
		expectCode(t, whole, 0)
		parts := shards(t, 2, args...)
		expectSameChecks(t, whole, merge(t, parts), parts)
	}
	parts := shards(t, 2, "agent", "--no-probe", "--prompt", "deploy it", "--", hostileBinary(t), "never-ask")
	merged := merge(t, parts)
	expectCode(t, merged, reports.ExitNothingChecked)
	if !strings.HasPrefix(merged.report.Reason, "shard 1 of 2: the agent ended its turn") {
		t.Errorf("merged shards of an agent that asks nothing: %s", merged.report.Reason)
	}
}

// run2 runs acpconform in this process, for refusals before a run or a
// merge walks the catalogue: Ginkgo refuses go test's -parallel.
func run2(args []string, stdout, stderr *bytes.Buffer) int {
	return run(context.Background(), args, strings.NewReader(""), stdout, stderr)
}

// TestAShardWithNothingToRun: more shards than checks leaves a shard
// nothing checked (exit 4), and the merge decides over the shards that
// ran something.
func TestAShardWithNothingToRun(t *testing.T) {
	parts := shards(t, 2, "run", "--check", "TOK-2/leading-zero")
	expectCode(t, parts[0], 0)
	expectCode(t, parts[1], 4)
	if !strings.Contains(parts[1].stderr+parts[1].stdout, "a shard has no share when the selection has fewer checks than shards") {
		t.Errorf("the empty shard does not say why:\n%s", parts[1].stdout)
	}
	merged := merge(t, parts)
	expectCode(t, merged, 0)
	if merged.report.Totals.Passed != 1 {
		t.Errorf("merged totals %+v, want the one check passed", merged.report.Totals)
	}
}

// TestAShardThatCouldNotRun makes the merged run could not run, naming it.
func TestAShardThatCouldNotRun(t *testing.T) {
	t.Parallel()
	parts := shards(t, 2, "agent", "--startup-timeout", "5s", "--", "false")
	expectCode(t, parts[0], 3)
	merged := merge(t, parts)
	expectCode(t, merged, 3)
	if !strings.HasPrefix(merged.report.Reason, "shard 1 of 2: ") || len(merged.report.Checks) != 1 {
		t.Errorf("merged: %s (%s), %d checks", merged.report.Verdict, merged.report.Reason, len(merged.report.Checks))
	}
}

func TestShardFlagValues(t *testing.T) {
	for _, value := range []string{"0/3", "4/3", "1/65", "x", "2"} {
		for _, cmd := range []string{"run", "agent", "client", "relay"} {
			var stdout, stderr bytes.Buffer
			code := run2([]string{cmd, "--shard", value, "--", "x", "{url}"}, &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), `for "--shard" flag`) {
				t.Errorf("%s --shard %s: exit %d, stderr %q; want 2 naming --shard", cmd, value, code, stderr.String())
			}
		}
	}
}
