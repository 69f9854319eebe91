package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

// checkFlags are the flags of every command that runs the catalogue.
type checkFlags struct {
	junit, json, summary string
	labelFilter          string
	ids                  string
	response, scenario   time.Duration
	verbose              bool
}

func (f *checkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.junit, "junit", "reports/junit.xml", "write the JUnit report here (\"\" for none)")
	fs.StringVar(&f.json, "json", "reports/report.json", "write the JSON report here (\"\" for none)")
	fs.StringVar(&f.summary, "summary", "reports/summary.md", "write the Markdown summary here (\"\" for none)")
	fs.StringVar(&f.labelFilter, "label-filter", "", "run the checks this Ginkgo label expression selects, such as 'area: containsAny TOK'")
	fs.StringVar(&f.ids, "id", "", "run the checks of these CONTRACT IDs only, comma-separated, such as TOK-2,CAP-3")
	fs.DurationVar(&f.response, "response-timeout", suite.DefaultResponse, "bound on each wait for the subject")
	fs.DurationVar(&f.scenario, "scenario-timeout", suite.DefaultScenario, "bound on each check in all")
	fs.BoolVar(&f.verbose, "v", false, "print every check as it runs, and the transcripts of failures")
}

// config builds the run's configuration, checking the flags' values.
func (f *checkFlags) config(subject suite.Subject) (suite.Config, error) {
	filter := f.labelFilter
	if f.ids != "" {
		var ids []string
		for _, id := range strings.Split(f.ids, ",") {
			id = strings.TrimSpace(id)
			if _, ok := suite.Lookup(id); !ok {
				return suite.Config{}, fmt.Errorf("--id: %q is not a CONTRACT ID (see acpconform list)", id)
			}
			ids = append(ids, id)
		}
		idFilter := "rule: containsAny {" + strings.Join(ids, ", ") + "}"
		if filter != "" {
			filter = "(" + filter + ") && " + idFilter
		} else {
			filter = idFilter
		}
	}
	if filter != "" {
		if _, err := types.ParseLabelFilter(filter); err != nil {
			return suite.Config{}, fmt.Errorf("--label-filter: %v", err)
		}
	}
	if f.response <= 0 || f.scenario <= 0 {
		return suite.Config{}, fmt.Errorf("timeouts must be positive")
	}
	return suite.Config{
		Subject: subject, Response: f.response, Scenario: f.scenario,
		LabelFilter: filter, Verbose: f.verbose,
		Reports: reports.Paths{JUnit: f.junit, JSON: f.json, Summary: f.summary},
	}, nil
}

const runUsage = `usage: acpconform run [flags]

Runs the catalogue against the reference ask_choice built into this binary,
prints a summary and writes the reports. It is what the README's first
command runs; acpconform agent, client and relay run the same catalogue
against other people's implementations.

Exit codes: 0 conformant; 1 a MUST check failed; 2 usage error.

flags:
`

// runReference runs the catalogue against the built-in reference.
func runReference(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f checkFlags
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, runUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "acpconform run: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	cfg, err := f.config(suite.Reference())
	if err != nil {
		fmt.Fprintf(stderr, "acpconform run: %v\n", err)
		return exitUsage
	}
	return check(cfg, stdout, stderr)
}

// check runs the catalogue, prints the summary and decides the exit code.
func check(cfg suite.Config, stdout, stderr io.Writer) int {
	report, err := suite.Run(cfg, func() {
		scenarios.Catalogue(scenarios.Options{Subject: cfg.Subject, Response: cfg.Response, Scenario: cfg.Scenario})
	})
	printSummary(stdout, report, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "acpconform: %v\n", err)
	}
	return reports.ExitCode(report)
}

// printSummary prints totals, a line per area and every failure.
func printSummary(w io.Writer, r types.Report, cfg suite.Config) {
	checks := reports.Checks(r)
	t := reports.Count(checks)
	fmt.Fprintf(w, "\nacpconform: %s: %d passed, %d failed (%d MUST), %d skipped in %.2fs\n",
		cfg.Subject.Name(), t.Passed, t.Failed, t.MustFailed, t.Skipped, r.RunTime.Seconds())
	for _, a := range reports.ByArea(checks, suite.Areas()) {
		fmt.Fprintf(w, "  %-4s %3d passed %3d failed %3d skipped\n", a.Name, a.Totals.Passed, a.Totals.Failed, a.Totals.Skipped)
	}
	for _, c := range checks {
		if c.Failed() {
			fmt.Fprintf(w, "FAILED %s %s: %s\n", strings.Join(c.Rules, " "), c.Level, c.Name)
		}
	}
	var written []string
	for _, p := range []string{cfg.Reports.JUnit, cfg.Reports.JSON, cfg.Reports.Summary} {
		if p != "" {
			written = append(written, p)
		}
	}
	if len(written) > 0 {
		fmt.Fprintf(w, "reports: %s\n", strings.Join(written, " "))
	}
}
