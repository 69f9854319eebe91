package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/reports"
)

const diffLong = `
Compares two report.json files, BASE (say, the target branch's run) and
HEAD (the pull request's), as any run, agent, client, relay or merge
writes them, check by check, and prints the difference as Markdown for a
pull request comment or a job's step summary: the verdicts of both runs,
then one table of

  new failure     failed in HEAD, did not fail in BASE, and is not a known
                  failure of HEAD's baseline
  fixed           failed in BASE, passes in HEAD
  still failing   failed in both (known failures too)
  added           runs in HEAD, did not run in BASE (skipped, deselected
                  or not in the report)
  removed         ran in BASE, does not run in HEAD
  stale baseline entry
                  HEAD's baseline lists a check that passes now

and for each new failure the command that runs it alone again and the one
that explains its rule. Everything the reports say is shown as data:
escaped, on one line, and bounded (100 rows, the commands of 20 new
failures; each says how many more there were).

--github also prints GitHub Actions annotations on stdout, before the
Markdown: an ::error for each new failure of a MUST check, a ::warning
for each new failure of a SHOULD check and each stale baseline entry (at
its file and line), at most 10 of each (GitHub's limit for a step), the
last saying how many more; and it appends the Markdown to
$GITHUB_STEP_SUMMARY when that is set. A run never annotates by itself:
only a diff knows what is new.

HEAD that could not run, checked nothing or was interrupted, where BASE
checked the subject, has no new failure only because it has no result:
the headline says so first, --github annotates it as an ::error, and it
exits 1.

Exit codes: 0 no new failure of a MUST check; 1 a new failure of a MUST
check (a new SHOULD failure is reported, never fatal), or HEAD with no
verdict where BASE had one; 2 a usage error, such as a file that is not a
report.json of this acpconform (named, with the line or the reason), or
two reports of different catalogues (an agent's and a client's, say); 6
the Markdown or the step summary could not be written.`

func (a *app) diffCommand() *cobra.Command {
	var markdown string
	var github bool
	cmd := a.command("diff [--markdown FILE] [--github] BASE.json HEAD.json", "Compare two report.json: what a change broke, fixed and still fails", diffLong,
		func(cmd *cobra.Command, files []string) (int, error) {
			if len(files) != 2 {
				return exitUsage, usagef(cmd, "name two report.json, BASE and HEAD; got %d", len(files))
			}
			if err := outputIsInput([]string{markdown}, files); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			var runs [2]reports.Run
			for i, file := range files {
				run, err := readDiffReport(file)
				if err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
				runs[i] = run
			}
			if b, h := runs[0].Selection.Catalogue, runs[1].Selection.Catalogue; b != h {
				return exitUsage, usagef(cmd, "%s is a run of acpconform %s and %s of acpconform %s: diff compares two runs of one catalogue",
					files[0], b, files[1], h)
			}
			d := reports.Compare(runs[0], runs[1])
			var md bytes.Buffer
			if err := reports.WriteDiffMarkdown(&md, d); err != nil {
				return exitOutput, err
			}
			code := 0
			if d.Broke() {
				code = 1
			}
			if github {
				for _, line := range d.Annotations() {
					fmt.Fprintln(a.protocolOut, line) // ours, each one command (reports.Annotations)
				}
			}
			var outErr error
			if markdown == "" || markdown == "-" {
				_, outErr = elide.NoCommands(a.protocolOut, elide.MarkdownEscapes).Write(md.Bytes())
			} else {
				outErr = reports.WriteFile(markdown, func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err })
				fmt.Fprintf(a.stdout, "acpconform diff: %s; the Markdown is in %s\n", d.Headline(), markdown)
			}
			if target := os.Getenv("GITHUB_STEP_SUMMARY"); github && target != "" && outErr == nil {
				outErr = appendFile(target, append(md.Bytes(), '\n'))
			}
			if outErr != nil {
				fmt.Fprintf(a.stderr, "acpconform diff: %v\n", outErr)
				return exitOutput, nil
			}
			return code, nil
		})
	cmd.Flags().StringVar(&markdown, "markdown", "-", "write the Markdown to `FILE` instead of stdout")
	cmd.Flags().BoolVar(&github, "github", false, "print GitHub Actions annotations on stdout, and append the Markdown to $GITHUB_STEP_SUMMARY when set")
	return cmd
}

// readDiffReport reads one report.json as merge does, bounded and
// validated, and refuses what no run of this acpconform writes: a report
// without its selection (an older acpconform's) or listing a check twice.
func readDiffReport(file string) (reports.Run, error) {
	run, err := readShardReport(file)
	switch {
	case err != nil:
		return reports.Run{}, err
	case run.Selection.Catalogue == "":
		return reports.Run{}, fmt.Errorf("%s: a report without its selection, from an acpconform older than this one: run it again with this one", file)
	}
	if err := run.DuplicateCheck(); err != nil {
		return reports.Run{}, fmt.Errorf("%s: %w", file, err)
	}
	return run, nil
}

// appendFile appends data to the file at path, creating it.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("$GITHUB_STEP_SUMMARY: %w", err)
	}
	return nil
}
