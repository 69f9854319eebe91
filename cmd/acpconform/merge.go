package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/inputfile"
	"github.com/acpconform/acpconform/kit/probeclient"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
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
subject, command, acpconform version, contract revision and selection
(--check, --id, --label-filter, --no-probe). merge trusts no shard to
have run its share: it deals the shares again from its own catalogue, and
each shard must have been dealt what merge deals it, list the checks of
merge's catalogue with their own rules and levels, and report every check
dealt to it run, unless it could not run, was interrupted or was nothing
checked. Anything else, and a file that is not such a report (another
format, an older acpconform's, unreadable, truncated), is a usage error
naming the file and why (exit 2).

Exit codes: acpconform help exit-codes.`

func (a *app) mergeCommand() *cobra.Command {
	var f checkFlags
	cmd := a.command("merge [flags] REPORT.json...", "Combine the report.json of every shard of a run into its verdict and reports", mergeLong,
		func(cmd *cobra.Command, files []string) (int, error) {
			if len(files) == 0 {
				return exitUsage, usagef(cmd, "name the report.json of every shard")
			}
			if f.toStdout() > 1 {
				return exitUsage, usagef(cmd, "only one of --junit, --json, --summary and --html can be - (stdout)")
			}
			if err := outputIsInput([]string{f.junit, f.json, f.summary, f.htmlPath(), f.writeBaseline}, files); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			shards := make([]reports.ShardRun, 0, len(files))
			for _, file := range files {
				run, err := readShardReport(file)
				if err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
				shards = append(shards, reports.ShardRun{File: file, Run: run})
			}
			run, interruption, err := reports.Merge(shards, ownShare)
			if err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			return a.report(cmd, &f, run, interruption)
		})
	f.registerReports(cmd.Flags())
	return cmd
}

// report decides and writes the verdict of a run made of no catalogue of
// its own (merge's shards, judge's traces), as a run of the catalogue's
// is: its reports under their lock, --baseline, the summary and the exit
// code.
func (a *app) report(cmd *cobra.Command, f *checkFlags, run reports.Run, interruption string) (int, error) {
	c := &checking{cmd: cmd.Name(), name: run.Subject, f: f, stdout: a.stdout, reports: a.protocolOut, stderr: a.stderr, ctx: a.ctx}
	c.cfg.Verbose = f.verbose
	if f.toStdout() > 0 {
		c.stdout = a.stderr // a report has stdout; the summary is for people
	}
	c.forPeople()
	if f.baseline != "" {
		var err error
		if c.baseline, err = reports.LoadBaseline(f.baseline); err != nil {
			return exitUsage, usagef(cmd, "--baseline: %v", err)
		}
	}
	lock, err := c.lockReports()
	if err != nil {
		return exitUsage, usagef(cmd, "%v", err)
	}
	defer lock.Release()
	outputErr := c.paths().Remove()
	reports.Decide(&run, c.baseline, interruption, len(run.Problems) > 0)
	return c.finish(run, outputErr), nil
}

// maxShardReport bounds what merge reads of a report: the reports bound
// every field a subject controls, so a larger file is none of acpconform's,
// and reading on could exhaust memory.
const maxShardReport = 64 << 20

// readShardReport reads one shard's report.json, naming the file in its
// error: a regular file (a device could read without end), bounded.
func readShardReport(file string) (reports.Run, error) {
	data, err := inputfile.Read(file, maxShardReport)
	var large *inputfile.TooLargeError
	switch {
	case errors.As(err, &large):
		return reports.Run{}, fmt.Errorf("%s: larger than %s, not a report of acpconform's", file, formatBytes(maxShardReport))
	case err != nil:
		return reports.Run{}, err // names the file
	}
	run, err := reports.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return reports.Run{}, fmt.Errorf("%s%s: %w", file, jsonLine(data, err), err)
	}
	return run, nil
}

// jsonLine is ":LINE" of where the JSON decoder stopped in data, when err
// says: a syntax error or a value of the wrong type.
func jsonLine(data []byte, err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	offset := int64(-1)
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	if offset < 0 || offset > int64(len(data)) {
		return ""
	}
	return fmt.Sprintf(":%d", bytes.Count(data[:offset], []byte("\n"))+1)
}

// ownCatalogue is merge's own knowledge of the catalogue of each command
// that runs one (run, agent, client, relay): its checks as a report lists
// them, and each one's labels, for a shard's filter to select. One
// preview walks them all: Ginkgo keeps what a process declares.
var ownCatalogue = sync.OnceValue(func() map[string]ownChecks {
	commands := []struct {
		name string
		run  subjects
	}{
		{"run", referenceRun()},
		{"agent", subjects{list: []suite.Subject{suite.Reference()}}},
		{"client", subjects{list: []suite.Subject{suite.ReferenceClient(probeclient.Options{})}}},
		{"relay", subjects{list: []suite.Subject{suite.ReferenceMirror()}}},
	}
	preview := suite.Preview(func() {
		for _, c := range commands {
			ginkgo.Describe(c.name, func() { catalogues(c.run.list, scenarios.Options{}) })
		}
	})
	own := map[string]ownChecks{}
	for _, c := range commands {
		inScope := func([]string) bool { return true }
		if c.run.scope != "" {
			inScope, _ = types.ParseLabelFilter(c.run.scope) // the runs' own: run checks it
		}
		var specs types.SpecReports
		for _, s := range preview.SpecReports {
			// Below Preview's container, the command's: a run has neither.
			if s.LeafNodeType != types.NodeTypeIt || len(s.ContainerHierarchyTexts) < 2 || s.ContainerHierarchyTexts[1] != c.name || !inScope(s.Labels()) {
				continue
			}
			s.ContainerHierarchyTexts = slices.Delete(slices.Clone(s.ContainerHierarchyTexts), 1, 2)
			s.ContainerHierarchyLabels = slices.Delete(slices.Clone(s.ContainerHierarchyLabels), 1, 2)
			specs = append(specs, s)
		}
		checks := reports.FromGinkgo(types.Report{SpecReports: specs}, "", nil, false).Checks
		for i := range checks {
			checks[i] = reports.Check{ID: checks[i].ID, Name: checks[i].Name, Area: checks[i].Area, Role: checks[i].Role, Level: checks[i].Level, Rules: checks[i].Rules}
		}
		own[c.name] = ownChecks{specs: specs, checks: checks}
	}
	return own
})

// ownChecks is the catalogue of one command, as merge knows it.
type ownChecks struct {
	specs  types.SpecReports
	checks []reports.Check // of specs, in order: what a report lists
}

// ownShare is what merge expects of a shard of sel (see [reports.Expect]):
// the checks of sel's catalogue and the share of them dealt to shard, as
// the run deals it.
func ownShare(sel reports.Selection, shard reports.Shard) ([]reports.Check, []string, error) {
	own, ok := ownCatalogue()[sel.Catalogue]
	if !ok {
		return nil, nil, fmt.Errorf("catalogue %q is none of this acpconform's (run, agent, client, relay)", sel.Catalogue)
	}
	var selected func([]string) bool
	if sel.Filter != "" {
		f, err := types.ParseLabelFilter(sel.Filter)
		if err != nil {
			return nil, nil, fmt.Errorf("selection %q is no label filter: %s", sel.Filter, plainGinkgoError(err))
		}
		selected = f
	}
	return slices.Clone(own.checks), suite.Deal(suite.Selectable(own.specs, selected), shard), nil
}
