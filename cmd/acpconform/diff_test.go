package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/reportcheck"
	"github.com/acpconform/acpconform/reports"
)

// diff runs acpconform diff in-process.
func diff(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"diff"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestDiffOfABrokenRule diffs a run of the reference agent with one of
// the mutant that accepts choice_01: exactly TOK-2/leading-zero is new,
// the diff exits 1, and its Markdown's one table says so.
func TestDiffOfABrokenRule(t *testing.T) {
	bin, mut := binaries(t)
	// The mutant breaks TOK-2 in two checks; of these, it breaks one.
	const selection = "TOK-1/*,TOK-2/leading-zero,TOK-3/*"
	base := acpconform(t, nil, "agent", "--check", selection, "--", bin, "reference-agent")
	expectCode(t, base, 0)
	head := acpconform(t, nil, "agent", "--check", selection, "--", mut, "reference-agent")
	expectCode(t, head, 1)
	baseJSON, headJSON := filepath.Join(base.dir, "report.json"), filepath.Join(head.dir, "report.json")

	summary := filepath.Join(t.TempDir(), "step-summary.md")
	code, stdout, stderr := diff(t, map[string]string{"GITHUB_STEP_SUMMARY": summary}, "--github", baseJSON, headJSON)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	annotations, md, _ := strings.Cut(stdout, "## acpconform diff: ")
	md = "## acpconform diff: " + md
	if lines := strings.Split(strings.TrimSpace(annotations), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "::error title=acpconform%3A new failure TOK-2/leading-zero::") {
		t.Errorf("annotations, want one error for TOK-2/leading-zero:\n%s", annotations)
	}
	doc := reportcheck.Show(md)
	if len(doc.Tables) != 1 {
		t.Fatalf("%d tables, want 1:\n%s", len(doc.Tables), md)
	}
	rows := doc.Tables[0]
	if len(rows) != 2 || rows[1][0] != "new failure" || !strings.HasPrefix(rows[1][1], "TOK-2/leading-zero: ") || rows[1][3] != "passed" || !strings.HasPrefix(rows[1][4], "failed: ") {
		t.Errorf("the table, want its header and TOK-2/leading-zero new:\n%q", rows)
	}
	for _, want := range []string{"acpconform agent --check TOK-2/leading-zero -v -- " + mut + " reference-agent\nacpconform explain TOK-2\n", "- the verdict changed: conformant to not conformant\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if written, err := os.ReadFile(summary); err != nil || string(written) != md+"\n" {
		t.Errorf("the step summary (%v) is not the Markdown:\n%s", err, written)
	}

	code, stdout, _ = diff(t, nil, headJSON, headJSON)
	if code != 0 || len(reportcheck.Show(stdout).Tables[0]) != 2 || !strings.Contains(stdout, "| still failing | TOK-2/leading-zero: ") {
		t.Errorf("a report diffed with itself: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = diff(t, nil, baseJSON, baseJSON)
	if code != 0 || !strings.Contains(stdout, "\nNo check changed.\n") {
		t.Errorf("a passing report diffed with itself: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = diff(t, nil, headJSON, baseJSON)
	if code != 0 || len(reportcheck.Show(stdout).Tables[0]) != 2 || !strings.Contains(stdout, "| fixed | TOK-2/leading-zero: ") {
		t.Errorf("the fix: exit %d\n%s", code, stdout)
	}
}

// TestDiffRefusesWhatIsNoReport: a file that is no report.json of this
// acpconform is a usage error naming the file and the line or reason.
func TestDiffRefusesWhatIsNoReport(t *testing.T) {
	dir := t.TempDir()
	good := reports.JSON{Acpconform: reports.FormatVersion, Subject: "x", Verdict: reports.Conformant, Selection: &reports.Selection{Catalogue: "agent"},
		Checks: []reports.Check{{ID: "TOK-1/a", Name: "a", State: reports.StatePassed}, {ID: "TOK-1/b", Name: "b", State: reports.StatePassed}}}
	write := func(name string, j any) string {
		data, _ := json.MarshalIndent(j, "", "  ")
		if s, ok := j.(string); ok {
			data = []byte(s)
		}
		path := filepath.Join(dir, name)
		os.WriteFile(path, data, 0o644)
		return path
	}
	base := write("base.json", good)
	older := good
	older.Selection = nil
	dup := good
	dup.Checks = append(append([]reports.Check{}, good.Checks...), good.Checks[0])
	format := good
	format.Acpconform = 1
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, nil, 0o644); err != nil || os.Truncate(huge, maxShardReport+1) != nil {
		t.Fatal("cannot make a sparse file above the bound")
	}
	for _, tc := range []struct{ file, want string }{
		{write("broken.json", "{\n  \"acpconform\": 2,\n  \"checks\": [,]\n}\n"), "broken.json:3: not JSON: invalid character ','"},
		{write("typed.json", "{\n\"acpconform\": 2,\n\"verdict\": 7}"), "typed.json:3: not an acpconform JSON report"},
		{write("older.json", older), "older.json: a report without its selection, from an acpconform older than this one"},
		{write("dup.json", dup), `dup.json: checks 1 and 3 are both "TOK-1/a"`},
		{write("format.json", format), "format.json: a JSON report of format 1; this acpconform reads format 2"},
		{filepath.Join(dir, "missing.json"), "missing.json: no such file"},
		{huge, "huge.json: larger than 64MiB, not a report of acpconform's"},
		{"/dev/zero", "/dev/zero: not a regular file"},
	} {
		code, stdout, stderr := diff(t, nil, base, tc.file)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("diff %s: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", filepath.Base(tc.file), code, stderr, stdout, tc.want)
		}
	}
	client := good
	client.Selection = &reports.Selection{Catalogue: "client"}
	if code, stdout, stderr := diff(t, nil, base, write("client.json", client)); code != exitUsage ||
		!strings.Contains(stderr, "base.json is a run of acpconform agent and ") || !strings.Contains(stderr, "client.json of acpconform client") || stdout != "" {
		t.Errorf("an agent's report against a client's: exit %d, stderr %q; want 2 and both catalogues named", code, stderr)
	}
	if code, _, stderr := diff(t, nil, base); code != exitUsage || !strings.Contains(stderr, "name two report.json, BASE and HEAD; got 1") {
		t.Errorf("one file: exit %d, %s", code, stderr)
	}
}

// TestDiffOfAHeadWithNoVerdictFails: a HEAD that could not run, checked
// nothing or was interrupted, where BASE checked the subject, has no new
// failure and is no pass: the diff exits 1, its heading and an ::error
// say why. A BASE with no verdict of its own makes no such claim.
func TestDiffOfAHeadWithNoVerdictFails(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, verdict reports.Verdict, reason string, checks ...reports.Check) string {
		j := reports.JSON{Acpconform: reports.FormatVersion, Subject: "x", Verdict: verdict, Reason: reason,
			Selection: &reports.Selection{Catalogue: "agent"}, Checks: checks}
		data, _ := json.MarshalIndent(j, "", "  ")
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	passed := reports.Check{ID: "TOK-1/a", Name: "a", Level: "MUST", State: reports.StatePassed}
	base := write("base.json", reports.Conformant, "all passed", passed)
	for _, head := range []struct {
		verdict reports.Verdict
		want    string
	}{
		{reports.CouldNotRun, "head could not run where base was conformant"},
		{reports.NothingChecked, "head nothing checked where base was conformant"},
		{reports.Interrupted, "head interrupted where base was conformant"},
	} {
		file := write("head.json", head.verdict, "it exited with status 1 before it answered initialize")
		code, stdout, stderr := diff(t, nil, "--github", base, file)
		if code != 1 || !strings.Contains(stdout, "## acpconform diff: "+head.want) || !strings.Contains(stdout, "::error title=acpconform%3A no verdict::"+head.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1, the heading and an ::error saying %q", head.verdict, code, stdout, stderr, head.want)
		}
	}
	noRun := write("norun.json", reports.CouldNotRun, "it did not start")
	if code, stdout, _ := diff(t, nil, noRun, noRun); code != 0 || !strings.Contains(stdout, "no new failure") {
		t.Errorf("two runs that could not run: exit %d, %q; want 0, nothing lost", code, stdout)
	}
}
