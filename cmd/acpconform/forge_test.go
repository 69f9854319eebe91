package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/reportcheck"
	"github.com/acpconform/acpconform/reports"
)

// expectTerminalClean checks what acpconform printed: no character of a
// subject's that is not text (reportcheck.Clean), and no line of a
// subject's standing as a line of acpconform's (at the start of a line),
// and no line a CI runner would take for a workflow command.
func expectTerminalClean(t *testing.T, name, text string) {
	t.Helper()
	if err := reportcheck.Clean(text); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	if commands := reportcheck.WorkflowCommands(text); commands != nil {
		t.Errorf("%s has lines a CI runner takes for workflow commands: %q", name, commands)
	}
	for _, l := range strings.Split(text, "\n") {
		for _, forged := range []string{"acpconform: agent command ./my-agent", "## ", "FORGERY-END", "</details>"} {
			if strings.HasPrefix(l, forged) {
				t.Errorf("%s has a line of the subject's as a line of its own: %q", name, l)
			}
		}
	}
}

// TestHostileForgery: a subject that writes reportcheck.Forgery (every
// control character, terminal escape sequences, bidi overrides, bytes
// that are not UTF-8, Markdown breakouts, workflow commands) on its stderr
// and in what it sends: a JSON-RPC error, its outcome, a line that is not
// JSON, the question and labels of an elicitation/create. With -v
// the terminal shows the end of its stderr and its transcripts too.
// The terminal, summary.md, the step summary and junit.xml show all of it
// escaped, and none of it ends a block, starts a heading or a line.
func TestHostileForgery(t *testing.T) {
	for _, how := range []string{"error", "outcome", "not-json", "labels"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			step := filepath.Join(t.TempDir(), "step-summary.md")
			s := newRun(t, "GITHUB_STEP_SUMMARY="+step)
			e := s.run("agent", "-v", "--id", "TOK-1", "--startup-timeout", "5s", "--response-timeout", "2s", "--", s.hostile, "forge", how)
			expectExit(t, e, 1)
			w := s.expectVerdict(verdictNotConformant)
			expectTerminalClean(t, "stdout", e.stdout)
			expectTerminalClean(t, "stderr", e.stderr)
			// Escaped, the subject's words are there: the test saw them.
			// The end of its stderr is, whatever the mode (-v); a reason
			// that quotes its error is, whole; its line that is not JSON
			// (the end of its stderr's forgery), its outcome and its
			// labels are in the transcript, whose lines the terminal cuts
			// to one screen, and the reports have whole.
			expectIn(t, "the terminal", e.stdout+e.stderr, `\xff\xfe`, "FORGERY-END", `##\x5berror]forged`, `x ##\x5bgroup]forged`)
			if how == "error" {
				expectIn(t, "the terminal", e.stdout+e.stderr, `\x1b]0;acpconform`, `\x0dacpconform`, `\u202e`)
			}
			if how == "labels" { // in the transcript of the question it asked
				expectIn(t, "report.json", w.jsonText, `"title\":\"x ##[group]forged\"`)
			}
			if w.summOK {
				if err := reportcheck.Markdown(w.summary); err != nil {
					t.Errorf("%v\n%s", err, clip(w.summary, 6000))
				}
				expectIn(t, "summary.md", w.summary, `\x1b]0;acpconform`, `\u009b`, `\xff\xfe`, "FORGERY-END")
			}
			if data, err := os.ReadFile(step); err != nil {
				t.Errorf("$GITHUB_STEP_SUMMARY: %v", err)
			} else if err := reportcheck.Markdown(string(data)); err != nil {
				t.Errorf("$GITHUB_STEP_SUMMARY: %v", err)
			}
			if w.junitOK {
				if err := reportcheck.JUnit([]byte(w.xml)); err != nil {
					t.Errorf("%v", err)
				}
				expectIn(t, "junit.xml", w.xml, `\x1b]0;acpconform`, `\u202e`, `\xff\xfe`, "FORGERY-END")
			}
			s.expectNoneLeft(true)
		})
	}
}

// TestPrintShowsShardTextAsData: the terminal summary of runs whose every
// text is forged, as a tampered shard's are (merge prints them): one that
// could not run, whose start-up failure goes to stderr too, and one that
// failed, with checks of every state that prints.
func TestPrintShowsShardTextAsData(t *testing.T) {
	forgery := reportcheck.Forgery + "\n" + reportcheck.NotUTF8
	check := func(state string) reports.Check {
		return reports.Check{
			ID: "TOK-2/x\n" + forgery, Name: "TOK: " + forgery, Area: "TOK\n" + forgery, Rules: []string{"TOK-2\n" + forgery}, Level: "MUST\n" + forgery,
			State: state, Failure: forgery, Process: "exited\n" + forgery, Rerun: "again\n" + forgery, Known: "known\n" + forgery,
			Transcript: forgery, Diagnostics: forgery,
		}
	}
	for _, run := range []reports.Run{
		{Subject: "agent\n" + forgery, Verdict: reports.CouldNotRun, Reason: forgery, Checks: []reports.Check{check(reports.StateFailed)}},
		{Subject: "agent\n" + forgery, Verdict: reports.NotConformant, Reason: forgery, Problems: []string{forgery},
			Checks: []reports.Check{check(reports.StateFailed), check(reports.StateError), check(reports.StateInterrupted), check(reports.StateFailed)}},
	} {
		var stdout, stderr strings.Builder
		c := (&checking{cmd: "merge", f: &checkFlags{}, stdout: &stdout, stderr: &stderr}).forPeople()
		c.cfg.Verbose = true // transcripts and stderr too
		c.print(run, nil, false)
		expectTerminalClean(t, string(run.Verdict)+": stdout", stdout.String())
		expectTerminalClean(t, string(run.Verdict)+": stderr", stderr.String())
		expectIn(t, string(run.Verdict), stdout.String(), `\x1b]0;acpconform`, `\x0dacpconform`)
	}
}

// TestMergeUsageErrorIsEscaped: a shard file that is no report of
// acpconform's is a usage error that may quote it: one line, escaped.
func TestMergeUsageErrorIsEscaped(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "report.json")
	id, err := json.Marshal("TOK-2/x\n" + reportcheck.Forgery)
	if err != nil {
		t.Fatal(err)
	}
	doc := fmt.Sprintf(`{"acpconform":%d,"subject":"s","verdict":"conformant","shard":{"index":1,"count":1},"checks":[{"id":%s,"name":"n","state":"forged"}]}`, reports.FormatVersion, id)
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := acpconform(t, nil, "merge", file)
	expectCode(t, r, 2)
	expectTerminalClean(t, "stderr", r.stderr)
	if lines := strings.Count(strings.TrimSpace(r.stderr), "\n"); lines > 0 || !strings.Contains(r.stderr, file) || !strings.Contains(r.stderr, `\x1b]0;`) {
		t.Errorf("stderr is %d lines, want one that names %s and quotes the shard escaped:\n%s", lines+1, file, r.stderr)
	}
}

// TestDiffPrintsNoWorkflowCommandButItsOwn: two reports whose every text
// is the forgery, workflow commands among them (a subject's words, or a
// tampered report's): what diff prints holds no line GitHub's runner
// would take for a command (reportcheck.WorkflowCommands) but the
// annotations of --github, each one line of its own kind with no second
// command in it, and the forgery is there, escaped.
func TestDiffPrintsNoWorkflowCommandButItsOwn(t *testing.T) {
	forgery := reportcheck.Forgery + "\n" + reportcheck.NotUTF8
	dir := t.TempDir()
	write := func(name string, verdict reports.Verdict, checks ...reports.Check) string {
		j := reports.JSON{Acpconform: reports.FormatVersion, Subject: "agent " + forgery, Verdict: verdict, Reason: forgery,
			Command: forgery, Selection: &reports.Selection{Catalogue: "agent"}, Checks: checks}
		data, err := json.MarshalIndent(j, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	check := func(id, level, state string) reports.Check {
		c := reports.Check{ID: id, Name: "TOK: " + forgery, Area: "TOK", Rules: []string{"TOK-2"}, Level: level, Role: "agent", State: state,
			Again: "acpconform agent --check " + id + " -- " + forgery, Transcript: forgery, Diagnostics: forgery}
		if state == reports.StateFailed {
			c.Failure, c.Process = forgery, forgery
		}
		return c
	}
	base := write("base.json", reports.Conformant, check("TOK-2/must", "MUST", reports.StatePassed), check("TOK-2/should", "SHOULD", reports.StatePassed))
	head := write("head.json", reports.NotConformant, check("TOK-2/must", "MUST", reports.StateFailed), check("TOK-2/should", "SHOULD", reports.StateFailed))
	lost := write("lost.json", reports.CouldNotRun)
	for _, c := range []struct {
		name        string
		args        []string
		annotations int // ours: --github's
	}{
		{"--github", []string{"--github", base, head}, 2},
		{"--github, head could not run", []string{"--github", base, lost}, 1},
		{"Markdown on stdout", []string{base, head}, 0},
		{"Markdown to a file", []string{"--markdown", filepath.Join(dir, "diff.md"), base, head}, 0},
	} {
		step := filepath.Join(t.TempDir(), "step-summary.md")
		code, stdout, stderr := diff(t, map[string]string{"GITHUB_STEP_SUMMARY": step}, c.args...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", c.name, code, stdout, stderr)
		}
		ours := 0
		for _, cmd := range reportcheck.WorkflowCommands(stdout + "\n" + stderr) {
			own := strings.HasPrefix(cmd, "::error title=acpconform%3A ") || strings.HasPrefix(cmd, "::warning title=acpconform%3A ")
			if !own || strings.Contains(cmd, "##[") {
				t.Errorf("%s: a workflow command not of diff's own: %q", c.name, cmd)
				continue
			}
			ours++
		}
		if ours != c.annotations {
			t.Errorf("%s: %d annotations, want %d:\n%s", c.name, ours, c.annotations, stdout)
		}
		shown := `##\[error]forged` // Markdown's escape
		switch {
		case c.annotations > 0:
			shown = `##\x5berror]forged` // one line of the annotation's message
		case strings.HasPrefix(c.args[0], "--markdown"):
			shown = "the Markdown is in"
		}
		expectIn(t, c.name, stdout, shown)
	}
}
