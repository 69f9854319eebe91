package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
)

// TestRunChecksEveryRule: acpconform run, the README's first command,
// checks every role against the built-in reference peers, so its
// report names every MUST and SHOULD rule of the contract, each with a
// check that ran and passed: a rule whose checks were all skipped is not
// checked.
func TestRunChecksEveryRule(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	cmd := exec.Command(bin, "run", "--junit", "", "--json", report, "--summary", "")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("acpconform run: %v\n%s", err, out)
	}
	// The client without form elicitation is there for CLI-4 alone: its
	// other checks are no part of the run, not even as deselected.
	if !strings.Contains(string(out), " 0 deselected") {
		t.Errorf("acpconform run deselected checks of its own:\n%s", out)
	}
	doc := readJSON(t, report)
	if len(doc.Checks) == 0 {
		t.Fatalf("acpconform run's report holds no check")
	}
	passed := map[string]bool{}
	named := map[string]bool{}
	for _, c := range doc.Checks {
		for _, id := range c.Rules {
			named[id] = true
			if c.State == reports.StatePassed {
				passed[id] = true
			}
		}
	}
	for _, r := range suite.Rules() {
		switch {
		case !named[r.ID]:
			t.Errorf("acpconform run's report does not name %s (%s, %s role)", r.ID, r.Level, r.Role)
		case !passed[r.ID]:
			t.Errorf("acpconform run named %s (%s, %s role), but none of its checks passed", r.ID, r.Level, r.Role)
		}
	}
}

// TestAReportToStdout: a report path of - writes that report to stdout,
// and no file named -; the summary for people goes to stderr then.
func TestAReportToStdout(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	for _, flag := range []string{"--json", "--summary", "--junit"} {
		dir := t.TempDir()
		args := map[string]string{"--json": "", "--summary": "", "--junit": ""}
		args[flag] = "-"
		cmd := exec.Command(bin, "run", "--check", "TOK-2/*", "--json", args["--json"], "--summary", args["--summary"], "--junit", args["--junit"])
		cmd.Dir = dir
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("acpconform run %s -: %v\n%s", flag, err, stderr.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
			t.Errorf("%s -: wrote a file named -", flag)
		}
		out := stdout.String()
		switch flag {
		case "--json":
			var doc struct{ Verdict string }
			if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Verdict != "conformant" {
				t.Errorf("--json -: stdout is not the JSON report (%v):\n%s", err, out)
			}
		case "--summary":
			if !strings.HasPrefix(out, "## acpconform:") {
				t.Errorf("--summary -: stdout is not the summary:\n%s", out)
			}
		case "--junit":
			if !strings.HasPrefix(out, "<?xml") {
				t.Errorf("--junit -: stdout is not the JUnit report:\n%s", out)
			}
		}
		if !strings.Contains(stderr.String(), "is conformant") {
			t.Errorf("%s -: the summary for people is not on stderr:\n%s", flag, stderr.String())
		}
	}
}

// TestRunPrintsEachAreaOnce: the progress prints a line per area as it
// ends, led by the time since the run began, so the summary after it does
// not print them again; -v adds a line per check, and the areas still
// once.
func TestRunPrintsEachAreaOnce(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"run"}, {"run", "--id", "TOK-1", "-v"}} {
		r := acpconform(t, nil, args...)
		expectCode(t, r, 0)
		n := 0
		for _, l := range strings.Split(r.stdout+r.stderr, "\n") {
			f := strings.Fields(l)
			if len(f) > 0 && progressClock.MatchString(f[0]) {
				f = f[1:]
			}
			if len(f) > 2 && f[0] == "TOK" && (f[2] == "checks:" || f[2] == "passed") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("acpconform %s prints the TOK area %d times, want once:\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), n, r.stdout, r.stderr)
		}
	}
}
