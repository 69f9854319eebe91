package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
)

// words is text with each run of white space one space: what it says,
// however the terminal wrapped it.
func words(text string) string { return strings.Join(strings.Fields(text), " ") }

// progressClock is the time since the run began that leads each progress
// line: [01:05].
var progressClock = regexp.MustCompile(`^\[\d\d:\d\d\]$`)

// frameworkWords are what Ginkgo's own reporter prints, which a user of
// acpconform has no use for: retries, node types and locations, hints for
// ginkgo's CLI, its summary.
var frameworkWords = []string{"Retrying", "↺", "[BeforeEach]", "[It]", "[FAILED]", "[ReportAfterSuite]", "ginkgo", "Ginkgo", "Running Suite", "Will run", "Summarizing", "Random Seed", "-vv"}

// TestVerboseShowsNoFrameworkInternals: -v against an agent that fails
// TOK-2's checks, each on a shared connection then on a fresh one (a
// retry, in Ginkgo's words), prints acpconform's own lines, each check as
// it ends with the time since the run began, and no word of the test
// framework's, nor a path of acpconform's source.
func TestVerboseShowsNoFrameworkInternals(t *testing.T) {
	t.Parallel()
	_, mut := binaries(t)
	r := acpconform(t, nil, "agent", "--check", "TOK-2/*", "-v", "--response-timeout", "2s", "--", mut, "reference-agent")
	expectCode(t, r, 1)
	out := r.stdout + r.stderr
	for _, w := range frameworkWords {
		if strings.Contains(out, w) {
			t.Errorf("-v prints %q:\n%s", w, out)
		}
	}
	if m := regexp.MustCompile(`[\w/.-]+\.go:\d+`).FindString(out); m != "" {
		t.Errorf("-v prints a source location, %s:\n%s", m, out)
	}
	failed := regexp.MustCompile(`(?m)^\[\d\d:\d\d\] FAILED  TOK-2/leading-zero \(TOK-2`)
	passed := regexp.MustCompile(`(?m)^\[\d\d:\d\d\] passed  TOK-2/`)
	area := regexp.MustCompile(`(?m)^\[\d\d:\d\d\] TOK +\d+ checks: `)
	if !failed.MatchString(r.stderr) || !passed.MatchString(r.stderr) || !area.MatchString(r.stderr) {
		t.Errorf("-v does not say each check and the area as they end, on stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "transcript") {
		t.Errorf("-v shows no transcript in the summary:\n%s", r.stdout)
	}
	for _, l := range strings.Split(r.stderr, "\n") {
		if n := utf8.RuneCountInString(l); n > reports.TerminalColumns && !strings.HasPrefix(l, "acpconform: ") {
			t.Errorf("a progress line of %d columns: %s", n, l)
		}
	}
}

// TestAgainRerunsThatOneCheck: the command report.json gives each check
// (again), run as it is in a shell, runs that check alone, with the same
// result: a failing one of an agent, and one that acpconform run declares
// for each of its two relays.
func TestAgainRerunsThatOneCheck(t *testing.T) {
	t.Parallel()
	bin, mut := binaries(t)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"agent", "--check", "TOK-2/leading-zero", "--response-timeout", "2s", "--", mut, "reference-agent"}, 1},
		{[]string{"run", "--check", "REL-1/ids-mapped-back"}, 0},
	} {
		r := acpconform(t, nil, tc.args...)
		expectCode(t, r, tc.code)
		ran := 0
		for _, c := range r.report.Checks {
			if c.State == reports.StateDeselected {
				continue
			}
			ran++
			if c.Again == "" {
				t.Errorf("%s has no again in report.json", c.Key())
				continue
			}
			dir := t.TempDir()
			cmd := exec.CommandContext(testbound.Context(t), "sh", "-c", c.Again)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(filepath.ListSeparator)+os.Getenv("PATH"))
			out, _ := cmd.CombinedOutput()
			again := readJSON(t, filepath.Join(dir, "acpconform-reports", "report.json"))
			var rerun []reports.Check
			for _, a := range again.Checks {
				if a.State != reports.StateDeselected {
					rerun = append(rerun, a)
				}
			}
			if len(rerun) != 1 || rerun[0].ID != c.ID || rerun[0].Name != c.Name || rerun[0].State != c.State {
				var got []string
				for _, a := range rerun {
					got = append(got, a.Name+": "+a.State)
				}
				t.Errorf("%s\nran %d checks %q, want %q alone, %s\n%s", c.Again, len(rerun), got, c.Name, c.State, out)
			}
		}
		if ran == 0 {
			t.Errorf("acpconform %q ran no check", tc.args)
		}
	}
}
