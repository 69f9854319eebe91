package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

// checkFlags are the flags of every command that runs the catalogue.
type checkFlags struct {
	junit, json, summary    string
	labelFilter             string
	ids                     string
	baseline, writeBaseline string
	response, scenario      time.Duration
	startup                 time.Duration
	verbose                 bool
}

func (f *checkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.junit, "junit", "reports/junit.xml", "write the JUnit report here (\"\" for none)")
	fs.StringVar(&f.json, "json", "reports/report.json", "write the JSON report here (\"\" for none)")
	fs.StringVar(&f.summary, "summary", "reports/summary.md", "write the Markdown summary here (\"\" for none); it is also appended to $GITHUB_STEP_SUMMARY when that is set")
	fs.StringVar(&f.labelFilter, "label-filter", "", "run the checks this Ginkgo label expression selects, such as 'area: containsAny TOK'")
	fs.StringVar(&f.ids, "id", "", "run the checks of these CONTRACT IDs only, comma-separated, such as TOK-2,CAP-3")
	fs.StringVar(&f.baseline, "baseline", "", "known failures, each with a reason (YAML): only new failures fail the run, and a listed check that passes is stale")
	fs.StringVar(&f.writeBaseline, "write-baseline", "", "write the run's failures as a baseline to this file")
	fs.DurationVar(&f.response, "response-timeout", suite.DefaultResponse, "bound on each wait for the subject")
	fs.DurationVar(&f.scenario, "scenario-timeout", suite.DefaultScenario, "bound on each check in all")
	fs.DurationVar(&f.startup, "startup-timeout", 30*time.Second, "bound on the subject's start: its process, its connection and its first initialize")
	fs.BoolVar(&f.verbose, "v", false, "print every check as it runs, and the transcripts of failures")
}

// config builds the run's configuration, checking the flags' values.
func (f *checkFlags) config(subject suite.Subject, extraFilter string) (suite.Config, error) {
	var filters []string
	if f.labelFilter != "" {
		filters = append(filters, "("+f.labelFilter+")")
	}
	if f.ids != "" {
		var ids []string
		for _, id := range strings.Split(f.ids, ",") {
			id = strings.TrimSpace(id)
			if _, ok := suite.Lookup(id); !ok {
				return suite.Config{}, fmt.Errorf("--id: %q is not a CONTRACT ID (see acpconform list)", id)
			}
			ids = append(ids, id)
		}
		filters = append(filters, "rule: containsAny {"+strings.Join(ids, ", ")+"}")
	}
	if extraFilter != "" {
		filters = append(filters, extraFilter)
	}
	filter := strings.Join(filters, " && ")
	if filter != "" {
		if _, err := types.ParseLabelFilter(filter); err != nil {
			return suite.Config{}, fmt.Errorf("--label-filter: %v", err)
		}
	}
	if f.response <= 0 || f.scenario <= 0 || f.startup <= 0 {
		return suite.Config{}, fmt.Errorf("timeouts must be positive")
	}
	return suite.Config{
		Subject: subject, Response: f.response, Scenario: f.scenario,
		LabelFilter: filter, Verbose: f.verbose,
		Reports: reports.Paths{JUnit: f.junit, JSON: f.json, Summary: f.summary},
	}, nil
}

// newFlagSet makes a subcommand's flag set: errors and -h go to stderr, and
// usage prints the usage text followed by the flags' defaults.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses a command's flags. A bad flag is one line naming it; -h
// prints the command's usage.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) bool {
	usage := fs.Usage
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
	case err != nil:
		fmt.Fprintf(stderr, "acpconform %s: %v (see acpconform %s -h)\n", fs.Name(), err, fs.Name())
	}
	return err == nil
}

// check runs the catalogue, prints the summary, writes the reports and the
// baseline, and decides the exit code.
func check(ctx context.Context, cfg suite.Config, o scenarios.Options, f *checkFlags, stdout, stderr io.Writer) int {
	var baseline *reports.Baseline
	if f.baseline != "" {
		var err error
		if baseline, err = reports.LoadBaseline(f.baseline); err != nil {
			fmt.Fprintf(stderr, "acpconform: --baseline: %v\n", err)
			return exitUsage
		}
	}
	if isTerminal(os.Stderr) && !cfg.Verbose {
		cfg.Progress = stderr
	}
	cfg.OnStart = func() { fmt.Fprintf(stderr, "acpconform: checking %s\n", cfg.Subject.Name()) }
	restore := func() {}
	if !cfg.Verbose {
		restore = silenceStdout() // Ginkgo's own report: ours is the summary below
	}
	o.Subject, o.Response, o.Scenario = cfg.Subject, cfg.Response, cfg.Scenario
	report, err := suite.Run(cfg, func() { scenarios.Catalogue(o) })
	restore()
	checks := reports.Checks(report)
	printSummary(stdout, report, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "acpconform: %v\n", err)
	}
	if f.writeBaseline != "" {
		if err := reports.WriteBaseline(f.writeBaseline, cfg.Subject.Name(), checks); err != nil {
			fmt.Fprintf(stderr, "acpconform: --write-baseline: %v\n", err)
		} else {
			fmt.Fprintf(stdout, "baseline: %s\n", f.writeBaseline)
		}
	}
	appendStepSummary(cfg.Reports.Summary, stderr)
	if baseline != nil {
		v := baseline.Judge(checks)
		fmt.Fprintf(stdout, "baseline %s: %d known failures, %d stale\n", baseline.File(), len(v.Known), len(v.Stale))
	}
	code, reasons := reports.Decide(report, baseline)
	if baseline != nil {
		for _, r := range reasons {
			fmt.Fprintf(stdout, "  %s\n", r)
		}
	}
	if ctx.Err() != nil && code == exitOK { // interrupted: what ran is not the whole catalogue
		fmt.Fprintln(stderr, "acpconform: interrupted")
		return exitFailed
	}
	return code
}

// printSummary prints totals, a line per area and every failure.
func printSummary(w io.Writer, r types.Report, cfg suite.Config) {
	checks := reports.Checks(r)
	t := reports.Count(checks)
	fmt.Fprintf(w, "acpconform: %s: %d passed, %d failed (%d MUST), %d skipped in %.2fs\n",
		cfg.Subject.Name(), t.Passed, t.Failed, t.MustFailed, t.Skipped, r.RunTime.Seconds())
	for _, a := range reports.ByArea(checks, suite.Areas()) {
		fmt.Fprintf(w, "  %-4s %3d passed %3d failed %3d skipped\n", a.Name, a.Totals.Passed, a.Totals.Failed, a.Totals.Skipped)
	}
	for _, c := range checks {
		if c.Failed() {
			fmt.Fprintf(w, "FAILED %s %s: %s\n  %s\n", strings.Join(c.Rules, " "), c.Level, c.Name, firstLine(c.Failure))
			if cfg.Verbose && c.Transcript != "" {
				fmt.Fprintf(w, "  transcript:\n    %s\n", strings.ReplaceAll(strings.TrimSpace(c.Transcript), "\n", "\n    "))
			}
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

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// appendStepSummary adds the Markdown summary to a GitHub Actions job
// summary, when the run has one.
func appendStepSummary(summary string, stderr io.Writer) {
	target := os.Getenv("GITHUB_STEP_SUMMARY")
	if target == "" || summary == "" {
		return
	}
	md, err := os.ReadFile(summary)
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(target, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_, err = f.Write(append(md, '\n'))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "acpconform: $GITHUB_STEP_SUMMARY: %v\n", err)
	}
}

// isTerminal reports whether f is a terminal, where progress lines help.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// checkSubject is the common path of agent, client and relay: configure the
// run, start the subject once (exit 3 when it cannot run), then run the
// catalogue.
func checkSubject(ctx context.Context, cmd string, subject suite.Subject, filter string, o scenarios.Options, f *checkFlags, stdout, stderr io.Writer) int {
	cfg, err := f.config(subject, filter)
	if err != nil {
		fmt.Fprintf(stderr, "acpconform %s: %v\n", cmd, err)
		return exitUsage
	}
	if err := preflight(ctx, subject, f.startup); err != nil {
		return couldNotRun(stderr, cmd, err)
	}
	if interrupted(ctx, stderr, cmd) {
		return exitFailed
	}
	return check(ctx, cfg, o, f, stdout, stderr)
}

// preflight starts the subject once and has initialize cross it: an agent
// answers it, a client sends it (and may finish its turn), a relay relays
// it to a mock agent. A subject that cannot is one clear error instead of a
// catalogue of failures.
func preflight(ctx context.Context, s suite.Subject, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	link, err := s.Connect(ctx)
	if err != nil {
		return err
	}
	what := "answer initialize"
	if s.Role() == suite.ClientRole {
		what = "send initialize"
		a := agent.New(agent.Config{Timeout: timeout})
		a.Connect(link.Conn)
		if err = a.WaitInitialize(ctx); err == nil {
			_ = a.WaitTurns(ctx, 1) // let a well-behaved client finish before it is stopped
		}
		a.Close()
	} else {
		if link.Upstream != nil { // a relay: a mock agent answers behind it
			what = "relay initialize"
			a := agent.New(agent.Config{Timeout: timeout})
			defer a.Close()
			go func() {
				if up, err := link.Upstream(ctx); err == nil {
					a.Connect(up)
				}
			}()
		}
		mc := client.New(client.Config{})
		mc.Connect(link.Conn)
		err = mc.Initialize(ctx)
		mc.Close()
	}
	exit := link.Close()
	if err != nil {
		return fmt.Errorf("%s did not %s within %s: %v%s", s.Name(), what, timeout, err, stderrTail(link, exit))
	}
	return nil
}

// stderrTail describes how a subject process ended and its last words.
func stderrTail(link *suite.Link, exit error) string {
	var b strings.Builder
	if exit != nil {
		fmt.Fprintf(&b, " (it exited: %v)", exit)
	}
	if link.Diagnostics != nil {
		if d := strings.TrimSpace(link.Diagnostics()); d != "" {
			lines := strings.Split(d, "\n")
			if len(lines) > 5 {
				lines = lines[len(lines)-5:]
			}
			fmt.Fprintf(&b, "; its stderr ends:\n  %s", strings.Join(lines, "\n  "))
		}
	}
	return b.String()
}

// interrupted reports a run stopped before its first check.
func interrupted(ctx context.Context, stderr io.Writer, cmd string) bool {
	if ctx.Err() == nil {
		return false
	}
	fmt.Fprintf(stderr, "acpconform %s: interrupted before the first check\n", cmd)
	return true
}

// couldNotRun reports a subject that did not start or answer, exit code 3.
func couldNotRun(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "acpconform %s: could not run: %v\n", cmd, err)
	return exitNoConnection
}
