package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHTMLReportPath: report.html goes beside report.json unless --html
// says where; --html "" writes none, and so does --json "" without
// --html; and with --json on stdout, --html cannot be there too.
func TestHTMLReportPath(t *testing.T) {
	bin, _ := binaries(t)
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string // the files the run writes, relative to its folder
		code  int
	}{
		{"beside the JSON report", []string{"--json", "out/report.json"}, []string{"out/report.html", "out/report.json"}, 0},
		{"where --html says", []string{"--json", "out/report.json", "--html", "page.html"}, []string{"out/report.json", "page.html"}, 0},
		{"none with --html \"\"", []string{"--json", "out/report.json", "--html", ""}, []string{"out/report.json"}, 0},
		{"none without a JSON report", []string{"--json", ""}, nil, 0},
		{"one report on stdout", []string{"--json", "-", "--html", "-"}, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, append([]string{"run", "--check", "TOK-2/leading-zero", "--junit", "", "--summary", ""}, tc.flags...)...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Fatalf("exit %d (%v), want %d:\n%s", code, err, tc.code, out)
			}
			var got []string
			filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, path)
					got = append(got, rel)
				}
				return err
			})
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("wrote %q, want %q:\n%s", got, tc.want, out)
			}
			for _, f := range tc.want {
				if !strings.Contains(string(out), " "+f) {
					t.Errorf("the run does not list the report %s it wrote:\n%s", f, out)
				}
			}
		})
	}
}

// TestHTMLReportOpensOnTheFailures: report.html of a real failing run,
// against the mutant that accepts choice_01, with a baseline that knows
// the run's first failure. The new failure comes first, the known one
// after it; the known one failed on a connection shared with earlier
// checks and again, alike, on a fresh one, and has the two attempts
// drawn apart, the failure marked in each; the check that failed on a
// fresh connection at once has one part; the skipped check says why.
func TestHTMLReportOpensOnTheFailures(t *testing.T) {
	bin, mutant := binaries(t)
	dir := t.TempDir()
	baseline := filepath.Join(dir, "baseline.yaml")
	if err := os.WriteFile(baseline, []byte("known:\n  - check: TOK-2/leading-zero\n    reason: choice_01 is read as choice_1 until the parser is replaced\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "report.html")
	cmd := exec.Command(bin, "agent", "--check", "TOK-2/*,FB-2/blocking-honours-context", "--baseline", baseline,
		"--json", "", "--junit", "", "--summary", "", "--html", html, "--", mutant, "reference-agent")
	if out, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("exit %d (%v), want 1: a new failure:\n%s", cmd.ProcessState.ExitCode(), err, out)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)

	// The failures in the page's order, and each one's parts.
	article := regexp.MustCompile(`<article class="failure( known)?" id="f-[0-9]+" data-state="failed" data-area="TOK" data-id="([^"]+)">`)
	part := regexp.MustCompile(`<div class="part( attempt (shared|fresh))?( failed)?">\n(<p class="attempt-label"><span class="attempt-name">([^<]*)</span> <span class="verdict-badge [a-z]+">([^<]*)</span>)?`)
	var got []string
	for i, m := range article.FindAllStringSubmatchIndex(page, -1) {
		kind := "new"
		if m[2] >= 0 {
			kind = "known"
		}
		end := len(page)
		if next := article.FindStringIndex(page[m[1]:]); next != nil {
			end = m[1] + next[0]
		}
		body := page[m[1]:end]
		got = append(got, fmt.Sprintf("%d %s %s", i, kind, page[m[4]:m[5]]))
		for _, p := range part.FindAllStringSubmatch(body, -1) {
			got = append(got, fmt.Sprintf("  part %q %q %q", p[2], p[5], p[6]))
		}
		got = append(got, fmt.Sprintf("  %d marked", strings.Count(body, ` blame"><summary>`)))
	}
	want := []string{
		"0 new TOK-2/two-zeros",
		`  part "" "" ""`,
		"  1 marked",
		"1 known TOK-2/leading-zero",
		`  part "shared" "attempt 1, on a connection shared with earlier checks" "failed"`,
		`  part "fresh" "attempt 2, on a fresh connection" "failed again"`,
		"  2 marked",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the failures of report.html:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(page, `data-id="FB-2/blocking-honours-context"><td><span class="state s-skipped">skipped</span>`) ||
		!strings.Contains(page, `<div class="why">skipped: needs the reference&#39;s Go API`) {
		t.Errorf("report.html does not show why FB-2/blocking-honours-context was skipped")
	}
}
