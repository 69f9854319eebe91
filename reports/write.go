package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// Paths says where to write each report; an empty path skips that report.
type Paths struct {
	JUnit   string
	JSON    string
	Summary string // Markdown
}

// Write writes the reports of r. areas orders the Markdown summary.
func Write(r types.Report, subject string, areas []string, p Paths) error {
	var errs []string
	do := func(path string, write func(string) error) {
		if path == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", path, err))
			return
		}
		if err := write(path); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", path, err))
		}
	}
	do(p.JUnit, func(path string) error {
		return reporters.GenerateJUnitReportWithConfig(r, path, reporters.JunitReportConfig{
			OmitTimelinesForSpecState: types.SpecStatePassed | types.SpecStateSkipped | types.SpecStatePending,
			OmitLeafNodeType:          true,
			OmitSuiteSetupNodes:       true, // the report's own nodes are not checks
		})
	})
	do(p.JSON, func(path string) error {
		return writeFile(path, func(w io.Writer) error { return WriteJSON(w, r, subject) })
	})
	do(p.Summary, func(path string) error {
		return writeFile(path, func(w io.Writer) error { return WriteMarkdown(w, r, subject, areas) })
	})
	if len(errs) > 0 {
		return fmt.Errorf("writing reports: %s", strings.Join(errs, "; "))
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// JSON is the JSON report.
type JSON struct {
	Acpconform int     `json:"acpconform"` // the report format version
	Subject    string  `json:"subject"`
	Succeeded  bool    `json:"succeeded"` // no MUST check failed
	Seconds    float64 `json:"seconds"`
	Totals     Totals  `json:"totals"`
	Checks     []Check `json:"checks"`
}

// WriteJSON writes the JSON report of r.
func WriteJSON(w io.Writer, r types.Report, subject string) error {
	checks := Checks(r)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(JSON{
		Acpconform: 1, Subject: subject, Succeeded: ExitCode(r) == 0,
		Seconds: r.RunTime.Seconds(), Totals: Count(checks), Checks: checks,
	})
}

// WriteMarkdown writes a summary fit for a CI job summary: totals, a table
// by area, then every failure with its reasons and the end of its
// transcript.
func WriteMarkdown(w io.Writer, r types.Report, subject string, areas []string) error {
	checks := Checks(r)
	t := Count(checks)
	var b strings.Builder
	verdict := "conformant"
	if ExitCode(r) != 0 {
		verdict = "NOT conformant"
	}
	fmt.Fprintf(&b, "## acpconform: %s is %s\n\n", subject, verdict)
	fmt.Fprintf(&b, "%d passed, %d failed (%d MUST), %d skipped in %s\n\n", t.Passed, t.Failed, t.MustFailed, t.Skipped, seconds(r.RunTime))
	b.WriteString("| area | passed | failed | skipped |\n|---|---:|---:|---:|\n")
	for _, a := range ByArea(checks, areas) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", a.Name, a.Totals.Passed, a.Totals.Failed, a.Totals.Skipped)
	}
	for _, c := range checks {
		if !c.Failed() {
			continue
		}
		fmt.Fprintf(&b, "\n**FAILED** %s %s `%s`\n\n", strings.Join(c.Rules, " "), c.Level, c.Name)
		for _, line := range strings.Split(strings.TrimSpace(c.Failure), "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
		if c.Transcript != "" {
			fmt.Fprintf(&b, "\n<details><summary>transcript</summary>\n\n```\n%s\n```\n</details>\n", lastLines(c.Transcript, 40))
		}
		if c.Diagnostics != "" {
			fmt.Fprintf(&b, "\n<details><summary>subject stderr</summary>\n\n```\n%s\n```\n</details>\n", lastLines(c.Diagnostics, 20))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lastLines keeps the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return fmt.Sprintf("[%d earlier lines]\n%s", len(lines)-n, strings.Join(lines[len(lines)-n:], "\n"))
}
