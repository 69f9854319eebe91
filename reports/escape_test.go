package reports_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/reportcheck"
	"github.com/acpconform/acpconform/reports"
)

// forgedRun is a run whose every text a subject or a shard could set is
// text: checks of every state that shows, one a known failure.
func forgedRun(text string) reports.Run {
	check := func(state string) reports.Check {
		return reports.Check{
			ID: "TOK-2/`" + text, Name: "TOK: " + text, Area: "TOK|" + text, Rules: []string{"TOK-2", text}, Level: "MUST" + text,
			Role: "agent", State: state, Failure: "failed: " + text, Process: "exited " + text, Rerun: "again " + text,
			Transcript: "+0.1s <- " + text, Diagnostics: text, SkipReason: "skipped " + text, Location: "x.go:1" + text,
		}
	}
	known := check(reports.StateFailed)
	known.Known = "known " + text
	return reports.Run{
		Subject: "agent " + text, Command: "./agent " + text, Version: text, Contract: text,
		Verdict: reports.NotConformant, Reason: text, Seconds: 1,
		Checks:   []reports.Check{check(reports.StateFailed), check(reports.StateError), check(reports.StateInterrupted), check(reports.StateSkipped), known, check(reports.StatePassed)},
		Problems: []string{"new failure: " + text, text},
	}
}

// expectShownAsData writes the Markdown and JUnit reports of a run whose
// every text is text, and checks them with reportcheck.
func expectShownAsData(t *testing.T, text string) (md, xml string) {
	t.Helper()
	r := forgedRun(text)
	var m, x bytes.Buffer
	if err := reports.WriteMarkdown(&m, r, []string{"TOK"}); err != nil {
		t.Fatal(err)
	}
	if err := reportcheck.Markdown(m.String()); err != nil {
		t.Fatalf("summary.md of a run whose texts are %q:\n%v\n%s", text, err, m.String())
	}
	if err := reports.WriteJUnit(&x, r); err != nil {
		t.Fatal(err)
	}
	if err := reportcheck.JUnit(x.Bytes()); err != nil {
		t.Fatalf("junit.xml of a run whose texts are %q:\n%v\n%s", text, err, x.String())
	}
	return m.String(), x.String()
}

func TestReportsShowSubjectTextAsData(t *testing.T) {
	md, xml := expectShownAsData(t, reportcheck.Forgery+"\n"+reportcheck.NotUTF8)
	for _, escaped := range []string{`\x1b]0;acpconform`, `\x0d`, `\u009b`, `\u202e`, `\xff\xfe`, "FORGERY-END"} {
		if !strings.Contains(md, escaped) || !strings.Contains(xml, escaped) {
			t.Errorf("summary.md or junit.xml does not show %s: the subject's text is missing, not escaped", escaped)
		}
	}
}

// FuzzReportsShowSubjectTextAsData: whatever a subject or a shard wrote,
// summary.md keeps its shape and junit.xml is well-formed and clean.
func FuzzReportsShowSubjectTextAsData(f *testing.F) {
	for _, s := range []string{reportcheck.Forgery, reportcheck.NotUTF8, "```\n## x", "</details>\n<details>", "\r\n|a|b|\n|-|-|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { expectShownAsData(t, text) })
}

// TestReportsOnStdoutHoldNoWorkflowCommand: a report written to stdout,
// which a CI job's log shows, holds no line its runner would take for a
// workflow command, whatever the subject said; each is still its format
// (the JSON reads back to the same run, the XML is well-formed, the
// Markdown keeps its shape).
func TestReportsOnStdoutHoldNoWorkflowCommand(t *testing.T) {
	text := reportcheck.Forgery
	run := forgedRun(text)
	for _, paths := range []reports.Paths{{JSON: "-"}, {JUnit: "-"}, {Summary: "-"}, {HTML: "-"}} {
		var out bytes.Buffer
		paths.Stdout = &out
		if _, err := reports.Write(run, []string{"TOK"}, paths); err != nil {
			t.Fatal(err)
		}
		if commands := reportcheck.WorkflowCommands(out.String()); commands != nil {
			t.Errorf("%+v: workflow commands on stdout: %q", paths, commands)
		}
		switch {
		case paths.JSON != "":
			back, err := reports.ReadJSON(&out)
			if err != nil || back.Checks[0].Failure != run.Checks[0].Failure {
				t.Errorf("report.json on stdout does not read back: %v", err)
			}
		case paths.JUnit != "":
			if err := reportcheck.JUnit(out.Bytes()); err != nil {
				t.Error(err)
			}
		case paths.Summary != "":
			if err := reportcheck.Markdown(out.String()); err != nil {
				t.Error(err)
			}
		}
	}
}
