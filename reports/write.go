package reports

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/acpconform/acpconform/internal/elide"
)

// Paths says where to write each report; an empty path skips that report.
type Paths struct {
	JUnit   string
	JSON    string
	Summary string // Markdown
	// Stdout gets the report whose path is "-"; nil means os.Stdout.
	Stdout io.Writer
}

// StdoutPath is the path of a report that goes to Paths.Stdout.
const StdoutPath = "-"

func (p Paths) each(f func(path string, write func(io.Writer, Run, []string) error)) {
	for _, r := range []struct {
		path  string
		write func(io.Writer, Run, []string) error
	}{
		{p.JUnit, func(w io.Writer, r Run, _ []string) error { return WriteJUnit(w, r) }},
		{p.JSON, func(w io.Writer, r Run, _ []string) error { return WriteJSON(w, r) }},
		{p.Summary, WriteMarkdown},
	} {
		if r.path != "" {
			f(r.path, r.write)
		}
	}
}

// Remove deletes the reports at p, so that a run that stops before it
// writes its own leaves no older verdict behind. A report that is not there
// is no error.
func (p Paths) Remove() error {
	var errs []error
	p.each(func(path string, _ func(io.Writer, Run, []string) error) {
		if path == StdoutPath {
			return
		}
		st, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return
		case err == nil && st.IsDir():
			err = fmt.Errorf("%s is a directory, not a report", path)
		case err == nil && st.Mode().IsRegular():
			err = os.Remove(path)
		case err == nil:
			return // a device or a pipe (/dev/null, say): nothing old to remove
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("remove the old report: %w", err))
		}
	})
	return errors.Join(errs...)
}

// Write writes every report of r; areas orders the Markdown summary. It
// returns the files it wrote, and every failure, each naming its file.
func Write(r Run, areas []string, p Paths) (written []string, err error) {
	var errs []error
	p.each(func(path string, write func(io.Writer, Run, []string) error) {
		if path == StdoutPath {
			out := p.Stdout
			if out == nil {
				out = os.Stdout
			}
			if err := write(out, r, areas); err != nil {
				errs = append(errs, fmt.Errorf("write a report to stdout: %w", err))
			}
			return
		}
		err := os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = WriteFile(path, func(w io.Writer) error { return write(w, r, areas) })
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("write the report %s: %w", path, err))
			return
		}
		written = append(written, path)
	})
	return written, errors.Join(errs...)
}

// WriteFile writes the file at path in full, or not at all: write writes
// to a new file beside it (.NAME.*.tmp), which takes path's place only once
// write has returned nil and the file is on disk. Until then, and when
// write or anything after fails, what was at path stays there whole, and
// the new file is removed. A path that names no regular file (/dev/null,
// a pipe) is written in place. The file gets mode 0644.
func WriteFile(path string, write func(io.Writer) error) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return writeInPlace(path, write)
	}
	path = linked(path) // replace the file a link names, not the link
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return named(err, path)
	}
	err = write(f)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp's 0600 would keep the report from the rest of CI
	}
	if err == nil {
		err = f.Sync() // whole on disk before it replaces what is there
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return named(err, path)
}

// named is err with the file it names, when it is the temporary file of
// the one at path, or a pattern for it, said to be path: the file the
// user named.
func named(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.HasPrefix(filepath.Base(pe.Path), "."+filepath.Base(path)+".") {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}

// linked is the file a symbolic link at path names, through every link,
// whether it exists or not; path itself when it is no link.
func linked(path string) string {
	for range 40 { // as many links as Linux follows
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			return path
		}
		to, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return path
}

// writeInPlace writes to a file that is no regular file, a device or a
// pipe, which a rename would replace.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// FormatVersion is the version of the JSON report's format: 2 added the
// verdict, its reason, skip reasons, deselected checks and known failures.
const FormatVersion = 2

// JSON is the JSON report.
type JSON struct {
	Acpconform int    `json:"acpconform"` // FormatVersion
	Version    string `json:"version,omitempty"`
	Contract   string `json:"contract,omitempty"`
	Subject    string `json:"subject"`
	Command    string `json:"command,omitempty"`
	Shard      *Shard `json:"shard,omitempty"` // a shard's report: merge reads it
	// Selection is what the run selected: merge compares the shards'.
	Selection *Selection `json:"selection,omitempty"`
	// Dealt is a shard's share: the IDs of the checks dealt to it.
	Dealt     *[]string `json:"dealt,omitempty"`
	Verdict   Verdict   `json:"verdict"`
	Reason    string    `json:"reason"`
	Succeeded bool      `json:"succeeded"` // the verdict is conformant
	Seconds   float64   `json:"seconds"`
	Totals    Totals    `json:"totals"`
	Problems  []string  `json:"problems,omitempty"`
	Checks    []Check   `json:"checks"`
}

// WriteJSON writes the JSON report of r.
func WriteJSON(w io.Writer, r Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	j := JSON{
		Acpconform: FormatVersion, Version: r.Version, Contract: r.Contract,
		Subject: r.Subject, Command: r.Command, Verdict: r.Verdict, Reason: r.Reason, Succeeded: r.Verdict == Conformant,
		Seconds: r.Seconds, Totals: Count(r.Checks), Problems: r.Problems, Checks: r.Checks,
	}
	if r.Shard.Count > 0 {
		j.Shard = &r.Shard
	}
	if r.Selection.Catalogue != "" {
		j.Selection = &r.Selection
	}
	if r.Dealt != nil {
		j.Dealt = &r.Dealt
	}
	// Each failed check names its cause, and what a timeout followed;
	// ReadJSON leaves both out, and merge works them out again.
	out := struct {
		JSON
		Checks []jsonCheck `json:"checks"` // in place of JSON's
	}{JSON: j, Checks: make([]jsonCheck, len(r.Checks))}
	for i, c := range r.Checks {
		out.Checks[i].Check = c
	}
	for _, cause := range Causes(r.Checks) {
		for _, i := range cause.indexes {
			out.Checks[i].Cause, out.Checks[i].Follows = cause.Name(), cause.Follows
		}
	}
	return enc.Encode(out)
}

// jsonCheck is a check as report.json has it.
type jsonCheck struct {
	Check
	// Cause is the key of the first check of the failed check's cause
	// (see [Cause]): failures of one cause have one.
	Cause string `json:"cause,omitempty"`
	// Follows is, for a timeout, the error its subject showed before it.
	Follows string `json:"follows,omitempty"`
}

// WriteMarkdown writes a summary fit for a CI job summary: the verdict and
// why, a table by area, then every cause of failures (see [Cause]) with
// its reason, how the subject's process ended, the checks it failed, and
// the ends of its first check's transcript and stderr. What a subject or
// a shard wrote shows as written and cannot change the summary's shape
// (see mdText, codeSpan and fenced).
func WriteMarkdown(w io.Writer, r Run, areas []string) error {
	checks := r.Checks
	t := Count(checks)
	var b strings.Builder
	fmt.Fprintf(&b, "## acpconform: %s%s\n\n%s\n\n", mdText(r.Headline()), r.ShardNote(), mdText(r.Reason+"."))
	fmt.Fprintf(&b, "%d passed, %d failed (%d MUST), %d skipped, %d deselected in %.2fs\n\n", t.Passed, t.Failed, t.MustFailed, t.Skipped, t.Deselected, r.Seconds)
	if groups := ByArea(checks, areas); len(groups) > 0 {
		b.WriteString("| area | passed | failed | skipped |\n|---|---:|---:|---:|\n")
		for _, a := range groups {
			fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", mdText(a.Name), a.Totals.Passed, a.Totals.Failed, a.Totals.Skipped)
		}
	}
	// Many new failures are one line: the blocks below show each, by cause.
	news := 0
	for _, p := range r.Problems {
		if strings.HasPrefix(p, "new failure: ") {
			news++
		}
	}
	said := false
	for _, p := range r.Problems {
		if news > 1 && strings.HasPrefix(p, "new failure: ") {
			if !said {
				fmt.Fprintf(&b, "\n- %d new failures of MUST checks: below, by cause", news)
				said = true
			}
			continue
		}
		fmt.Fprintf(&b, "\n- %s", mdText(elide.Head(p, 1000)))
	}
	if len(r.Problems) > 0 {
		b.WriteString("\n")
	}
	for _, cause := range Causes(checks) {
		c := cause.Checks[0]
		word := "FAILED"
		switch {
		case c.Known != "":
			word = "KNOWN FAILURE"
		case c.State == StateInterrupted:
			word = "INTERRUPTED"
		case c.State == StateError:
			word = "COULD NOT RUN"
		}
		fmt.Fprintf(&b, "\n**%s** %s\n\n", word, mdHeading(c))
		if c.Known != "" {
			fmt.Fprintf(&b, "Known failure: %s\n\n", mdText(elide.Head(c.Known, 1000)))
		}
		// An indented code block: every line of it is indented, its
		// control characters escaped.
		for _, line := range strings.Split(elide.Escape(elide.Lines(strings.TrimSpace(c.Failure), 40, 400)), "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
		if note := cause.Note(); note != "" {
			fmt.Fprintf(&b, "    %s\n", elide.EscapeLine(elide.Head(note, 1000))) // in the block: it quotes the subject
		}
		if c.Process != "" {
			fmt.Fprintf(&b, "\nThe subject's process %s.\n", mdText(c.Process))
		}
		if len(cause.Checks) == 1 && c.Rerun != "" {
			fmt.Fprintf(&b, "\nRun again: %s.\n", mdText(elide.Head(c.Rerun, 1000)))
		}
		if len(cause.Checks) > 1 {
			fmt.Fprintf(&b, "\nThe same cause failed %d checks (the transcript below is the first one's; report.json and junit.xml have each one's failure and transcript):\n\n", len(cause.Checks))
			for _, o := range cause.Checks {
				fmt.Fprintf(&b, "- %s\n", mdLabel(o))
				if o.Rerun != "" {
					fmt.Fprintf(&b, "  Run again: %s.\n", mdText(elide.Head(o.Rerun, 1000)))
				}
			}
		}
		if c.Transcript != "" {
			fmt.Fprintf(&b, "\n<details><summary>transcript</summary>\n\n%s\n</details>\n", fenced(lastLines(c.Transcript, 40, 300)))
		}
		if c.Diagnostics != "" {
			fmt.Fprintf(&b, "\n<details><summary>subject stderr</summary>\n\n%s\n</details>\n", fenced(lastLines(c.Diagnostics, 20, 300)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lastLines keeps the last n lines of s, each at most width bytes.
func lastLines(s string, n, width int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	head := ""
	if len(lines) > n {
		head = fmt.Sprintf("[%d earlier lines]\n", len(lines)-n)
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = elide.Head(l, width)
	}
	return head + strings.Join(lines, "\n")
}

// WriteJUnit writes the JUnit XML report of r: one testsuite, one testcase
// a check (deselected ones left out), the area as the classname, the
// CONTRACT IDs as a property, the transcript as system-out and the
// subject's stderr as system-err. What a subject or a shard wrote has its
// control characters escaped (elide.Escape; attributes on one line,
// elide.EscapeLine), so that the file is well-formed XML 1.0 whatever they
// wrote, and nothing in it moves the cursor of a CI log that shows it.
func WriteJUnit(w io.Writer, r Run) error {
	line, text := elide.EscapeLine, elide.Escape
	suite := reporters.JUnitTestSuite{
		Name:    line("acpconform: " + r.Subject),
		Package: "acpconform",
		Time:    r.Seconds,
		Properties: reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
			{Name: "subject", Value: line(r.Subject)},
			{Name: "subject.command", Value: line(r.Command)},
			{Name: "verdict", Value: line(string(r.Verdict))},
			{Name: "reason", Value: line(r.Reason)},
			{Name: "acpconform.version", Value: line(r.Version)},
			{Name: "contract.revision", Value: line(r.Contract)},
		}},
	}
	if r.Shard.Count > 0 {
		suite.Properties.Properties = append(suite.Properties.Properties, reporters.JUnitProperty{Name: "shard", Value: r.Shard.String()})
	}
	for _, c := range r.Checks {
		if c.State == StateDeselected {
			continue
		}
		name := c.Name
		if c.ID != "" {
			name = c.ID + ": " + c.Name
		}
		tc := reporters.JUnitTestCase{
			Name:      line(name),
			Classname: line("acpconform." + c.Area),
			Status:    line(c.State),
			Time:      c.Seconds,
			SystemOut: text(c.Transcript),
			SystemErr: text(c.Diagnostics),
			Properties: &reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
				{Name: EntryRules, Value: line(strings.Join(c.Rules, ", "))},
				{Name: "level", Value: line(c.Level)},
			}},
		}
		if c.Location != "" {
			tc.Properties.Properties = append(tc.Properties.Properties, reporters.JUnitProperty{Name: "location", Value: line(c.Location)})
		}
		if c.Rerun != "" {
			tc.Properties.Properties = append(tc.Properties.Properties, reporters.JUnitProperty{Name: "rerun", Value: line(c.Rerun)})
		}
		body := c.Failure
		if c.Process != "" {
			body += "\n\nThe subject's process " + c.Process + "."
		}
		body = text(body)
		switch {
		case c.Known != "":
			tc.Skipped = &reporters.JUnitSkipped{Message: line("known failure: " + elide.Head(c.Known, 1000))}
			suite.Skipped++
		case c.State == StateFailed:
			tc.Failure = &reporters.JUnitFailure{Message: line(firstLine(c.Failure)), Type: line(c.Level), Description: body}
			suite.Failures++
		case c.State == StateInterrupted:
			tc.Error = &reporters.JUnitError{Message: "interrupted", Type: "interrupted", Description: body}
			suite.Errors++
		case c.State == StateError:
			tc.Error = &reporters.JUnitError{Message: line(firstLine(c.Failure)), Type: "not started", Description: body}
			suite.Errors++
		case c.State == StateSkipped:
			tc.Skipped = &reporters.JUnitSkipped{Message: line(c.SkipReason)}
			suite.Skipped++
		}
		suite.TestCases = append(suite.TestCases, tc)
		suite.Tests++
	}
	doc := reporters.JUnitTestSuites{
		Tests: suite.Tests, Disabled: suite.Skipped, Errors: suite.Errors, Failures: suite.Failures,
		Time: r.Seconds, TestSuites: []reporters.JUnitTestSuite{suite},
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// firstLine is the first line of s, bounded.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return elide.Head(line, 300)
}
