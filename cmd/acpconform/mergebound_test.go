package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/reportcheck"
	"github.com/acpconform/acpconform/reports"
)

// TestMergeBoundsAndEscapesAShard: a shard's report.json whose failure is
// 60 MiB, full of control characters, and whose stderr, transcript and
// process forge Markdown and lines: merge cuts the failure as a run cuts
// its subject's (reports.MaxFailure), so that its reports stay small, and
// its terminal, summary.md and junit.xml show it escaped.
func TestMergeBoundsAndEscapesAShard(t *testing.T) {
	t.Parallel()
	parts := shards(t, 2, "run", "--check", "TOK-1/*")
	for _, p := range parts {
		expectCode(t, p, 0)
	}
	// Edit the report as JSON, keeping whatever else it records.
	path := filepath.Join(parts[0].dir, "report.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var forged map[string]any
	for _, c := range doc["checks"].([]any) {
		if c := c.(map[string]any); c["state"] == reports.StatePassed {
			forged = c
			break
		}
	}
	if forged == nil {
		t.Fatalf("shard 1 of 2 ran no check:\n%s", data)
	}
	const huge = 60 << 20
	chunk := reportcheck.Forgery + "\n" + strings.Repeat("x", 1<<20-len(reportcheck.Forgery)-2) + "\n"
	forged["state"] = reports.StateFailed
	// The failure is spliced into the encoded report, chunk by chunk: the
	// race detector makes encoding 60 MiB in one piece cost seconds of CPU.
	const placeholder = "acpconform-huge-failure"
	forged["failure"] = placeholder
	forged["diagnostics"] = reportcheck.Forgery + "\n" + reportcheck.NotUTF8
	forged["transcript"] = "+0.1s <- " + reportcheck.Forgery
	forged["process"] = "exited with status 1\n## acpconform: agent command ./my-agent is conformant\n\x1b[2K\r"
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	encoded, err := json.Marshal(chunk)
	if err != nil || huge%len(chunk) != 0 {
		t.Fatalf("a chunk of %d bytes: %v", len(chunk), err)
	}
	failure := bytes.Repeat(encoded[1:len(encoded)-1], huge/len(chunk))
	data = bytes.Replace(data, []byte(`"`+placeholder+`"`), append(append([]byte(`"`), failure...), '"'), 1)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	merged := merge(t, parts)
	expectCode(t, merged, 1)
	expectTerminalClean(t, "stdout", merged.stdout)
	expectTerminalClean(t, "stderr", merged.stderr)
	expectIn(t, "the terminal", merged.stdout, `\x1b]0;acpconform`, `\u202e`)
	for _, f := range []string{"report.json", "junit.xml", "summary.md"} {
		if st, err := os.Stat(filepath.Join(merged.dir, f)); err != nil {
			t.Error(err)
		} else if st.Size() > 1<<20 {
			t.Errorf("merge wrote a %s of %d bytes from a shard's failure of %d: it is not bounded", f, st.Size(), huge)
		}
	}
	for _, c := range merged.report.Checks {
		if c.State == reports.StateFailed && (len(c.Failure) > reports.MaxFailure+100 || !strings.HasSuffix(c.Failure, fmt.Sprintf("[%d bytes in all]", huge))) {
			t.Errorf("report.json: %s's failure is %d bytes, ending %q; want it cut to reports.MaxFailure (%d), saying %d bytes in all",
				c.Key(), len(c.Failure), c.Failure[max(0, len(c.Failure)-40):], reports.MaxFailure, huge)
		}
	}
	if md, err := os.ReadFile(filepath.Join(merged.dir, "summary.md")); err != nil {
		t.Error(err)
	} else if err := reportcheck.Markdown(string(md)); err != nil {
		t.Errorf("%v\n%s", err, clip(string(md), 6000))
	}
	if xml, err := os.ReadFile(filepath.Join(merged.dir, "junit.xml")); err != nil {
		t.Error(err)
	} else if err := reportcheck.JUnit(xml); err != nil {
		t.Error(err)
	}
}
