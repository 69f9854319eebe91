package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/reports"
)

const mergeLong = `
Combines the report.json of every shard of one run (acpconform run, agent,
client or relay with --shard I/N, each on its own machine) into the
verdict, summary and reports of the whole run, as if one machine had run
every check: each check takes its state from the shard that selected it,
and the verdict is decided again over them all, with --baseline when given
(the shards' own baselines are not carried over). A shard that could not
run, or was interrupted, makes the whole run so, naming the shard.

merge reads report.json alone: it holds everything the other reports
hold. The files must be every shard of one N, each once, of the same
subject, command, acpconform version and contract revision; anything
else, and a file that is not such a report (another format, unreadable,
truncated), is a usage error naming the file and why (exit 2).

Exit codes: acpconform help exit-codes.`

func (a *app) mergeCommand() *cobra.Command {
	var f checkFlags
	cmd := a.command("merge [flags] REPORT.json...", "Combine the report.json of every shard of a run into its verdict and reports", mergeLong,
		func(cmd *cobra.Command, files []string) (int, error) {
			if len(files) == 0 {
				return exitUsage, usagef(cmd, "name the report.json of every shard")
			}
			if f.toStdout() > 1 {
				return exitUsage, usagef(cmd, "only one of --junit, --json and --summary can be - (stdout)")
			}
			// Every input is read before anything is written: an output
			// path may name an input.
			shards := make([]reports.ShardRun, 0, len(files))
			for _, file := range files {
				run, err := readShardReport(file)
				if err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
				shards = append(shards, reports.ShardRun{File: file, Run: run})
			}
			run, interruption, err := reports.Merge(shards)
			if err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			c := &checking{cmd: cmd.Name(), name: run.Subject, f: &f, stdout: a.stdout, stderr: a.stderr, ctx: a.ctx}
			c.cfg.Verbose = f.verbose
			if f.toStdout() > 0 {
				c.stdout = a.stderr // a report has stdout; the summary is for people
			}
			c.forPeople()
			if f.baseline != "" {
				if c.baseline, err = reports.LoadBaseline(f.baseline); err != nil {
					return exitUsage, usagef(cmd, "--baseline: %v", err)
				}
			}
			outputErr := c.paths().Remove()
			reports.Decide(&run, c.baseline, interruption, len(run.Problems) > 0)
			return c.finish(run, outputErr), nil
		})
	f.registerReports(cmd.Flags())
	return cmd
}

// maxShardReport bounds what merge reads of a report: the reports bound
// every field a subject controls, so a larger file is none of acpconform's,
// and reading on could exhaust memory.
const maxShardReport = 64 << 20

// readShardReport reads one shard's report.json, naming the file in its
// error: a regular file (a device could read without end), bounded.
func readShardReport(file string) (reports.Run, error) {
	fh, err := os.Open(file)
	if err != nil {
		return reports.Run{}, err // names the file
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		return reports.Run{}, fmt.Errorf("%s: not a regular file", file)
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxShardReport+1))
	switch {
	case err != nil:
		return reports.Run{}, fmt.Errorf("%s: %w", file, err)
	case len(data) > maxShardReport:
		return reports.Run{}, fmt.Errorf("%s: larger than %s, not a report of acpconform's", file, formatBytes(maxShardReport))
	}
	run, err := reports.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return reports.Run{}, fmt.Errorf("%s: %w", file, err)
	}
	return run, nil
}
