package reports_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/reports"
)

// readBack writes r as report.json and reads it as merge does.
func readBack(t *testing.T, r reports.Run) reports.Run {
	t.Helper()
	var b bytes.Buffer
	if err := reports.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	got, err := reports.ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestReadJSONBoundsWhatAShardSays: a report whose texts are larger than
// a run keeps, or break lines where a run's never do, reads as a run would
// have written them: cut to the same bounds, one line where one is shown.
func TestReadJSONBoundsWhatAShardSays(t *testing.T) {
	huge := strings.Repeat(strings.Repeat("x", 1023)+"\x1b", 4<<10) // 4 MiB, as a failure: 256 times its bound
	big := strings.Repeat("x\x1b[2K\r", 16<<10)                     // 96 KiB, past every other bound
	long := "line\n## acpconform: forged\n" + big
	r := reports.Run{
		Subject: long, Command: long, Version: long, Contract: long, Verdict: reports.NotConformant, Reason: long, Problems: []string{long},
		Shard: reports.Shard{Index: 1, Count: 2},
		Checks: []reports.Check{{
			ID: long, Name: long, Area: long, Rules: []string{long}, Level: long, Role: long, State: reports.StateFailed,
			Failure: huge, Transcript: big, Diagnostics: big, Process: long, Rerun: long, SkipReason: long, Location: long, Known: long,
		}},
	}
	got := readBack(t, r)
	c := got.Checks[0]
	for name, b := range map[string]struct {
		text string
		max  int
	}{
		"failure": {c.Failure, reports.MaxFailure}, "transcript": {c.Transcript, reports.MaxTranscript}, "diagnostics": {c.Diagnostics, reports.MaxStderr},
	} {
		if len(b.text) > b.max+100 || !strings.Contains(b.text, " bytes in all]") {
			t.Errorf("%s: %d bytes, want at most %d and the size of the whole", name, len(b.text), b.max)
		}
	}
	for name, text := range map[string]string{
		"subject": got.Subject, "command": got.Command, "version": got.Version, "contract": got.Contract, "reason": got.Reason, "problem": got.Problems[0],
		"id": c.ID, "name": c.Name, "area": c.Area, "rule": c.Rules[0], "level": c.Level, "role": c.Role,
		"process": c.Process, "rerun": c.Rerun, "skip reason": c.SkipReason, "location": c.Location, "known": c.Known,
	} {
		if strings.ContainsAny(text, "\n\r\x1b") || len(text) > 4*(reports.MaxFailure+100) || !strings.HasPrefix(text, `line\x0a## acpconform`) {
			t.Errorf("%s: %d bytes %q..., want one line, escaped, of at most %d bytes before escapes", name, len(text), text[:min(60, len(text))], reports.MaxFailure)
		}
	}
}

// TestReadJSONKeepsARunsReport: what a run writes reads back as it was,
// its own elisions included.
func TestReadJSONKeepsARunsReport(t *testing.T) {
	elided := func(max int) string { return elide.Head(strings.Repeat("é\n", 1<<20), max) }
	r := reports.Run{
		Subject: "agent command ./a", Verdict: reports.NotConformant, Reason: "1 MUST check failed", Shard: reports.Shard{Index: 1, Count: 2},
		Checks: []reports.Check{{
			ID: "TOK-2/x", Name: "TOK: x", Area: "TOK", Rules: []string{"TOK-2", "SES-1"}, Level: "MUST", Role: "agent", State: reports.StateFailed,
			Failure: elided(reports.MaxFailure), Diagnostics: elide.Tail(strings.Repeat("é\n", 1<<20), reports.MaxStderr),
			Transcript: "attempt 1, on a connection shared with earlier checks:\n" + elide.Tail(strings.Repeat("+0.1s <- {}\n", 1<<20), reports.MaxTranscript/2) +
				"\nattempt 2, on a fresh connection:\n" + elide.Tail(strings.Repeat("+0.1s <- {}\n", 1<<20), reports.MaxTranscript/2),
			Process: "exited with status 1 during the check", Rerun: "it failed on a connection shared with earlier checks, and failed again",
		}},
	}
	if diff := cmp.Diff(r, readBack(t, r)); diff != "" {
		t.Errorf("a run's report read back differs (-written +read):\n%s", diff)
	}
}
