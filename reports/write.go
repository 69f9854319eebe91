package reports

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
)

// Paths says where to write each report; an empty path skips that report.
type Paths struct {
	JUnit   string
	JSON    string
	Summary string // Markdown
	HTML    string // one self-contained page (see WriteHTML)
	// Stdout gets the report whose path is "-"; nil means os.Stdout.
	Stdout io.Writer
}

// StdoutPath is the path of a report that goes to Paths.Stdout.
const StdoutPath = "-"

func (p Paths) each(f func(path string, write func(io.Writer, Run, []string) error, escapes elide.CommandEscapes)) {
	for _, r := range []struct {
		path    string
		write   func(io.Writer, Run, []string) error
		escapes elide.CommandEscapes // on stdout, so that no text of it is a workflow command
	}{
		{p.JUnit, func(w io.Writer, r Run, _ []string) error { return WriteJUnit(w, r) }, elide.XMLEscapes},
		{p.JSON, func(w io.Writer, r Run, _ []string) error { return WriteJSON(w, r) }, elide.JSONEscapes},
		{p.Summary, WriteMarkdown, elide.MarkdownEscapes},
		{p.HTML, WriteHTML, elide.XMLEscapes},
	} {
		if r.path != "" {
			f(r.path, r.write, r.escapes)
		}
	}
}

// Remove deletes the reports at p, so that a run that stops before it
// writes its own leaves no older verdict behind. A report that is not there
// is no error.
func (p Paths) Remove() error {
	var errs []error
	p.each(func(path string, _ func(io.Writer, Run, []string) error, _ elide.CommandEscapes) {
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
	p.each(func(path string, write func(io.Writer, Run, []string) error, escapes elide.CommandEscapes) {
		if path == StdoutPath {
			out := p.Stdout
			if out == nil {
				out = os.Stdout
			}
			// Stdout is a CI job's log: what subjects said must not be
			// read there as a command of the runner's.
			if err := write(elide.NoCommands(out, escapes), r, areas); err != nil {
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
	Commit     string `json:"commit,omitempty"`   // acpconform's, when its build says
	Modified   bool   `json:"modified,omitempty"` // built from changed files
	Contract   string `json:"contract,omitempty"`
	Schema     string `json:"schema,omitempty"` // the ACP schema release
	// Rules are the rules the checks cite, with level and source.
	Rules   []Rule `json:"rules,omitempty"`
	Subject string `json:"subject"`
	Command string `json:"command,omitempty"`
	Shard   *Shard `json:"shard,omitempty"` // a shard's report: merge reads it
	// Selection is what the run selected: merge compares the shards'.
	Selection *Selection `json:"selection,omitempty"`
	// Dealt is a shard's share: the IDs of the checks dealt to it.
	Dealt     *[]string `json:"dealt,omitempty"`
	Verdict   Verdict   `json:"verdict"`
	Reason    string    `json:"reason"`
	Succeeded bool      `json:"succeeded"` // the verdict is conformant
	// Operations says, of an agent, what the run judged of each operation
	// of its API (checked, not offered, not checked); Unreached lists the
	// MUST rules no check reached. Both are worked out from the checks:
	// ReadJSON leaves them out.
	Operations []Operation `json:"operations,omitempty"`
	Unreached  []Unreached `json:"unreached,omitempty"`

	Seconds  float64  `json:"seconds"`
	Totals   Totals   `json:"totals"`
	Problems []string `json:"problems,omitempty"`
	Checks   []Check  `json:"checks"`
}

// WriteJSON writes the JSON report of r.
func WriteJSON(w io.Writer, r Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	j := JSON{
		Acpconform: FormatVersion, Version: r.Version, Commit: r.Commit, Modified: r.Modified, Contract: r.Contract, Schema: r.Schema, Rules: r.Rules,
		Subject: r.Subject, Command: r.Command, Verdict: r.Verdict, Reason: r.Reason, Succeeded: r.Verdict == Conformant,
		Operations: r.Operations(), Unreached: r.Unreached(),
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
	// Each failed check names its cause, what a timeout followed and the
	// explain lines of its rules; ReadJSON leaves them out, and merge
	// works them out again.
	out := struct {
		JSON
		Checks []jsonCheck `json:"checks"` // in place of JSON's
	}{JSON: j, Checks: make([]jsonCheck, len(r.Checks))}
	for i, c := range r.Checks {
		out.Checks[i].Check = c
		if c.Failed() || c.State == StateError {
			for _, rule := range c.Rules {
				out.Checks[i].Explain = append(out.Checks[i].Explain, ExplainLine(rule))
			}
		}
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
	// Explain is, for a failed check, the command line that explains
	// each of its rules (acpconform explain RULE), its first rule's
	// first; with Again, what the terminal says to do next.
	Explain []string `json:"explain,omitempty"`
}

// WriteMarkdown writes a summary fit for a CI job summary: the verdict and
// why, a table by area, what fails the run, the MUST rules no check reached
// (see [Run.Unreached]), then every cause of failures (see [Cause]) with
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
	// The rules the verdict does not cover, after what fails the run: a
	// paragraph apart, so that neither list runs into the other.
	if us := r.Unreached(); len(us) > 0 {
		fmt.Fprintf(&b, "\n%s:\n\n", mdText(unreachedHeading(len(us))))
		whys, ids := unreachedGroups(us)
		for _, why := range whys {
			spans := make([]string, len(ids[why]))
			for i, id := range ids[why] {
				spans[i] = codeSpan(id)
			}
			fmt.Fprintf(&b, "- %s: %s\n", mdText(why), strings.Join(spans, ", "))
		}
	}
	for _, cause := range newFirst(Causes(checks)) {
		c := cause.Checks[0]
		fmt.Fprintf(&b, "\n**%s** %s\n\n", c.Word(), mdHeading(c))
		if c.Known != "" {
			fmt.Fprintf(&b, "Known failure: %s\n\n", mdText(elide.Head(c.Known, 1000)))
		}
		b.WriteString(mdParagraphs(elide.Lines(strings.TrimSpace(c.Failure), 40, 400)))
		if note := cause.Note(); note != "" {
			fmt.Fprintf(&b, "\n%s\n", mdText(elide.Head(note, 1000)))
		}
		if msgs := cause.Messages(); msgs != nil {
			b.WriteString("\nIts checks quote the subject saying different things, each maybe a fix of its own:\n\n")
			for _, m := range msgs {
				fmt.Fprintf(&b, "- %s\n", mdText(elide.Head(m, 1000)))
			}
		}
		if c.Process != "" {
			fmt.Fprintf(&b, "\nThe subject's process %s.\n", mdText(c.Process))
		}
		if len(cause.Checks) == 1 && c.Rerun != "" {
			fmt.Fprintf(&b, "\nRun again: %s.\n", mdText(elide.Head(c.Rerun, 1000)))
		}
		if len(cause.Checks) == 1 {
			b.WriteString(mdNextSteps(c))
		}
		if len(cause.Checks) > 1 {
			fmt.Fprintf(&b, "\nThe same cause failed %d checks (the transcript below is the first one's; report.json and junit.xml have each one's failure and transcript); the command after each runs it again:\n\n", len(cause.Checks))
			for _, o := range cause.Checks {
				again := ""
				if o.Again != "" {
					again = ": " + codeSpan(elide.Head(o.Again, 1000))
				}
				fmt.Fprintf(&b, "- %s%s\n", mdLabel(o), again)
				if o.Rerun != "" {
					fmt.Fprintf(&b, "  Run again: %s.\n", mdText(elide.Head(o.Rerun, 1000)))
				}
			}
			if rules := mdExplain(causeRules(cause)); rules != "" {
				fmt.Fprintf(&b, "\nThe rules: %s\n", rules)
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

// newFirst is causes with the new failures (and interruptions and checks
// that could not run) first, then the known ones, each in the run's
// order: what a reader must act on comes first.
func newFirst(causes []Cause) []Cause {
	slices.SortStableFunc(causes, func(a, b Cause) int {
		return cmp.Compare(boolInt(a.Checks[0].Known != ""), boolInt(b.Checks[0].Known != ""))
	})
	return causes
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mdNextSteps is what to do next about a failed check, as the terminal
// says it: the command that runs it again, and acpconform explain for
// each of its rules, each a line of its own (a hard break ends all but
// the last).
func mdNextSteps(c Check) string {
	var lines []string
	if c.Again != "" {
		lines = append(lines, "Run it again: "+codeSpan(elide.Head(c.Again, 1000)))
	}
	if rules := mdExplain(c.Rules); rules != "" {
		lines = append(lines, "The rules: "+rules)
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n" + strings.Join(lines, "\\\n") + "\n"
}

// causeRules is the rules the checks of a cause cite, each once, in the
// order they first come.
func causeRules(cause Cause) []string {
	var rules []string
	for _, c := range cause.Checks {
		for _, r := range c.Rules {
			if !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
	}
	return rules
}

// mdExplain is the acpconform explain line of each rule, code spans
// joined by commas.
func mdExplain(rules []string) string {
	var spans []string
	for _, r := range rules {
		spans = append(spans, codeSpan(ExplainLine(elide.Head(r, 200))))
	}
	return strings.Join(spans, ", ")
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

// firstLine is the first line of s, bounded.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return elide.Head(line, 300)
}
