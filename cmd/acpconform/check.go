package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/acpconform/acpconform/internal/bridge"
	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/internal/version"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

// Exit codes: the verdicts' (reports.Exit*), and the CLI's own.
const (
	exitOK           = reports.ExitConformant
	exitFailed       = reports.ExitNotConformant
	exitUsage        = reports.ExitUsage
	exitNoConnection = reports.ExitCouldNotRun
	exitOutput       = reports.ExitOutput
)

// DefaultTimeout bounds a whole run unless --timeout says otherwise.
const DefaultTimeout = 30 * time.Minute

// DefaultReports is the folder the reports go to: not a source folder.
const DefaultReports = "acpconform-reports"

// checkFlags are the flags of every command that runs the catalogue.
type checkFlags struct {
	junit, json, summary    string
	html                    string
	htmlFlag                *pflag.Flag // to tell --html "" from no --html
	labelFilter             string
	ids, checks             []string
	baseline, writeBaseline string
	response, scenario      time.Duration
	startup, timeout        time.Duration
	promptly                time.Duration
	maxFrame, maxHeld       byteSize
	shard                   shardValue
	verbose, keepGoing      bool
	traces                  string
}

func (f *checkFlags) register(fs *pflag.FlagSet) {
	f.registerReports(fs)
	f.registerSelection(fs, "run")
	fs.Var(&f.shard, "shard", fmt.Sprintf("run shard I of N (1 <= I <= N <= %d): a balanced share of the selected checks, the same on every machine; acpconform merge combines the shards' report.json", reports.MaxShards))
	fs.BoolVar(&f.keepGoing, "keep-going", false, fmt.Sprintf("run every check; by default, once one cause has failed %d rules in a row, the checks after it are not run (reported so, never passed): they would only repeat it. --baseline and --write-baseline run every check", reports.RepeatRules))
	fs.StringVar(&f.traces, "traces", "", "write every connection a check opens to an agent or a client as a trace in `DIR` (agent-0001.jsonl, client-0002.jsonl, ...), for acpconform judge and replay (docs/traces.md)")
	fs.DurationVar(&f.response, "response-timeout", suite.DefaultResponse, "bound on each wait for the subject")
	fs.DurationVar(&f.scenario, "scenario-timeout", suite.DefaultScenario, "bound on each check in all")
	fs.DurationVar(&f.startup, "startup-timeout", suite.DefaultStartup, "bound on the start of each process of the subject: its process, its connection and its first initialize")
	fs.DurationVar(&f.timeout, "timeout", DefaultTimeout, "bound on the whole run; when it passes the run stops as if interrupted")
	fs.DurationVar(&f.promptly, "promptly-within", scenarios.DefaultPromptly, "the bound of \"promptly\" (RTE-7): how soon a cancelled or disconnected choice must end; only raises the contract's 2s, for slow machines")
	f.maxFrame = byteSize{n: wire.DefaultMaxFrame, max: maxSize}
	fs.Var(&f.maxFrame, "max-frame", "refuse a message from the subject above this `SIZE` (bytes, or with KiB, MiB, GiB)")
	f.maxHeld = byteSize{n: wire.DefaultMaxHeld, max: maxSize}
	fs.Var(&f.maxHeld, "max-held", "what one connection may hold of the subject's messages for checks and transcripts (`SIZE`); past it the check fails as a flood")
}

// registerSelection registers the flags that select checks, which
// acpconform list shares to show what they select; verb is what is done
// with the checks ("run", "list").
func (f *checkFlags) registerSelection(fs *pflag.FlagSet, verb string) {
	fs.StringSliceVar(&f.checks, "check", nil, verb+" only the checks whose IDs match these `GLOBS`, such as TOK-2/leading-zero or 'CAP-*' (* matches anything)")
	fs.StringSliceVar(&f.ids, "id", nil, verb+" only the checks of these CONTRACT `IDS`, such as TOK-2,CAP-3")
	fs.StringVar(&f.labelFilter, "label-filter", "", verb+" the checks this Ginkgo label `EXPRESSION` selects, such as 'area: containsAny TOK'")
}

// registerReports registers the flags of what a run writes and how it is
// judged, which acpconform merge shares.
func (f *checkFlags) registerReports(fs *pflag.FlagSet) {
	fs.StringVar(&f.junit, "junit", DefaultReports+"/junit.xml", "write the JUnit report to `FILE` (- for stdout, \"\" for none)")
	fs.StringVar(&f.json, "json", DefaultReports+"/report.json", "write the JSON report to `FILE` (- for stdout, \"\" for none)")
	fs.StringVar(&f.summary, "summary", DefaultReports+"/summary.md", "write the Markdown summary to `FILE` (- for stdout, \"\" for none); it is also appended to $GITHUB_STEP_SUMMARY when that is set")
	fs.StringVar(&f.html, "html", "", "write the HTML report, one page with each failure's transcript drawn as a sequence diagram, to `FILE` (- for stdout, \"\" for none); without --html, report.html beside the JSON report, none when that is \"\" or -")
	f.htmlFlag = fs.Lookup("html")
	fs.StringVar(&f.baseline, "baseline", "", "known failures, each with a reason (YAML `FILE`): only new failures fail the run, and a listed check that passes is stale")
	fs.StringVar(&f.writeBaseline, "write-baseline", "", "write the run's failures as a baseline to `FILE`: a known failure keeps its reason, a new one gets a TODO reason to replace (--baseline refuses a TODO)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print every check as it ends, and the end of each failure's transcript and of the subject's stderr")
}

// wire is the connection options the size flags set.
func (f *checkFlags) wire() wire.Options {
	return wire.Options{MaxFrame: f.maxFrame.n, MaxHeld: f.maxHeld.n}
}

// config builds the run's configuration, checking the flags' values.
func (f *checkFlags) config(subject suite.Subject, extraFilters ...string) (suite.Config, error) {
	filter, err := f.selection(extraFilters...)
	if err != nil {
		return suite.Config{}, err
	}
	if err := positive(map[string]time.Duration{"response-timeout": f.response, "scenario-timeout": f.scenario, "startup-timeout": f.startup, "timeout": f.timeout}); err != nil {
		return suite.Config{}, err
	}
	if f.promptly < scenarios.DefaultPromptly {
		return suite.Config{}, fmt.Errorf("--promptly-within %s: the contract's bound is %s; --promptly-within only raises it", f.promptly, scenarios.DefaultPromptly)
	}
	if stdouts := f.toStdout(); stdouts > 1 {
		return suite.Config{}, fmt.Errorf("only one of --junit, --json, --summary and --html can be - (stdout)")
	}
	return suite.Config{
		Subject: subject, Response: f.response, Scenario: f.scenario,
		LabelFilter: filter, Verbose: f.verbose, Shard: f.shard.shard,
	}, nil
}

// selection is the label filter that --label-filter, --id and --check
// make, with the command's own extraFilters: "" selects every check.
func (f *checkFlags) selection(extraFilters ...string) (string, error) {
	var filters []string
	if f.labelFilter != "" {
		// Parsed alone first, so that an error names what the user wrote,
		// not the filter it joins.
		if _, err := types.ParseLabelFilter(f.labelFilter); err != nil {
			// Ginkgo's message repeats the filter before the reason.
			reason := strings.TrimSpace(strings.TrimPrefix(plainGinkgoError(err), strings.Join(strings.Fields(f.labelFilter), " ")))
			return "", fmt.Errorf("--label-filter %s: %s", elide.Head(strconv.Quote(f.labelFilter), 200), reason)
		}
		filters = append(filters, "("+f.labelFilter+")")
	}
	if len(f.ids) > 0 {
		var ids []string
		for _, id := range f.ids {
			typed := strings.TrimSpace(id)
			id = strings.ToUpper(typed)
			if _, ok := suite.Lookup(id); !ok {
				return "", fmt.Errorf("--id: %w", notARule(typed))
			}
			ids = append(ids, id)
		}
		filters = append(filters, "rule: containsAny {"+strings.Join(ids, ", ")+"}")
	}
	if len(f.checks) > 0 {
		var globs []string
		for _, g := range f.checks {
			re, err := checkGlob(g)
			if err != nil {
				return "", fmt.Errorf("--check: %w", err)
			}
			globs = append(globs, re)
		}
		filters = append(filters, "("+strings.Join(globs, " || ")+")")
	}
	for _, extra := range extraFilters {
		if extra != "" {
			filters = append(filters, extra)
		}
	}
	filter := strings.Join(filters, " && ")
	if filter != "" {
		if _, err := types.ParseLabelFilter(filter); err != nil {
			return "", fmt.Errorf("--label-filter: %s", plainGinkgoError(err))
		}
	}
	return filter, nil
}

// toStdout counts the reports that go to stdout.
func (f *checkFlags) toStdout() int {
	n := 0
	for _, p := range []string{f.junit, f.json, f.summary, f.htmlPath()} {
		if p == "-" {
			n++
		}
	}
	return n
}

// checkGlob turns a --check glob over check IDs (TOK-2/leading-zero) into
// a Ginkgo label filter over the check: labels that carry them
// (check:TOK-2:leading-zero): * matches any run of characters, ? one.
func checkGlob(glob string) (string, error) {
	glob = strings.TrimSpace(glob)
	if glob == "" || strings.ContainsAny(glob, "/()&|!,") && strings.Count(glob, "/") > 1 {
		return "", fmt.Errorf("%q is not a check ID glob such as TOK-2/leading-zero or 'TOK-*'", glob)
	}
	var b strings.Builder
	b.WriteString("/^check:")
	for _, r := range strings.Replace(glob, "/", ":", 1) {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '/', '(', ')', '&', '|', '!', ',':
			return "", fmt.Errorf("%q is not a check ID glob such as TOK-2/leading-zero or 'TOK-*'", glob)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$/")
	return b.String(), nil
}

// plainGinkgoError is a Ginkgo error's message without its colour codes
// and its formatter's markup ({{red}}, {{/}}), which it leaves in a label
// filter's error to mark where the parse stopped.
func plainGinkgoError(err error) string {
	msg := err.Error()
	if ge, ok := err.(types.GinkgoError); ok {
		msg = ge.Message
	}
	return strings.Join(strings.Fields(ginkgoMarkup.ReplaceAllString(stripANSI(msg), "")), " ")
}

// ginkgoMarkup is a style tag of Ginkgo's formatter: {{red}}, {{bold}}, {{/}}.
var ginkgoMarkup = regexp.MustCompile(`\{\{/?[a-z-]*\}\}`)

// stripANSI removes terminal colour sequences.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < '@' || s[j] > '~') {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// timedOut is the cause of a run's context ended by --timeout.
type timedOut struct{ after time.Duration }

func (t timedOut) Error() string {
	return fmt.Sprintf("the run timed out after %s (--timeout)", t.after)
}

// checking is one run of the catalogue from the CLI: its flags, the
// subject, and the run's report as it takes shape.
type checking struct {
	cmd      string
	name     string          // the run's subject, in its reports
	subjects []suite.Subject // each checked by its role's catalogue
	scope    string          // see subjects.scope
	again    []string        // the command line that runs one check again, with {check} for its ID
	command  string          // the subject's, shell-quoted
	cfg      suite.Config
	o        scenarios.Options
	f        *checkFlags
	baseline *reports.Baseline
	stdout   io.Writer // the summary's: stderr when a report has stdout
	width    int       // of the terminal stdout is, 0 for none (see terminalWidth)
	reports  io.Writer // stdout, for a report whose path is -
	stderr   io.Writer
	ctx      context.Context // the run's: signals and --timeout end it
	// areasSaid says the run's progress already printed a line per area,
	// so that the summary does not print them again.
	areasSaid bool
	started   time.Time // when the run began: progress counts from it
}

// forPeople has what c writes for people to read (the summary, progress
// and messages) escaped on its way, since it shows
// what subjects said (see elide.Escape): nothing a subject writes moves
// the cursor or changes the terminal. Reports on stdout go as they are.
func (c *checking) forPeople() *checking {
	c.stdout, c.stderr = elide.NewWriter(c.stdout), elide.NewWriter(c.stderr)
	return c
}

// checkSubject is the common path of agent, client and relay: configure
// the run, start the subject once (could not run when it cannot), run the
// catalogue, and report.
func (a *app) checkSubject(cmd *cobra.Command, subject suite.Subject, argv []string, filter string, o scenarios.Options, f *checkFlags, preflight bool) (int, error) {
	return a.checkSubjects(cmd, subjects{name: subject.Name(), list: []suite.Subject{subject}}, argv, filter, o, f, preflight)
}

// subjects are what one run checks, each by its role's catalogue.
type subjects struct {
	name string // the run's subject, in its reports
	list []suite.Subject
	// scope is a label filter that keeps each subject to the checks it is
	// there for; the checks it leaves out are no part of the run, not even
	// as deselected.
	scope string
}

// checkSubjects runs the catalogue of each subject in one run: acpconform
// run checks every role at once. preflight is false for the built-in
// reference peers, which cannot fail to start.
func (a *app) checkSubjects(cmd *cobra.Command, s subjects, argv []string, filter string, o scenarios.Options, f *checkFlags, preflight bool) (int, error) {
	cfg, err := f.config(s.list[0], filter, s.scope)
	if err != nil {
		return exitUsage, usageError{cmd: cmd.CommandPath(), err: err}
	}
	// A baseline names failures check by check: it is written from, and
	// compared with, every check.
	o.KeepGoing = f.keepGoing || f.baseline != "" || f.writeBaseline != ""
	if o.Traces = f.traces; o.Traces != "" {
		if err := os.MkdirAll(o.Traces, 0o700); err != nil {
			return exitUsage, usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("--traces: %w", err)}
		}
	}
	c := &checking{cmd: cmd.Name(), name: s.name, subjects: s.list, scope: s.scope, again: again(cmd, argv), cfg: cfg, o: o, f: f, stdout: a.stdout, reports: a.protocolOut, stderr: a.stderr}
	if len(argv) > 0 {
		c.command = bridge.CommandLine(argv)
	}
	if f.toStdout() > 0 {
		c.stdout = a.stderr // a report has stdout; the summary is for people
	}
	c.width = terminalWidth(c.stdout)
	c.forPeople()
	if f.baseline != "" {
		if c.baseline, err = reports.LoadBaseline(f.baseline); err != nil {
			return exitUsage, usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("--baseline: %w", err)}
		}
	}
	ctx := a.ctx
	stderr := c.stderr
	ctx, cancel := context.WithTimeoutCause(ctx, f.timeout, timedOut{f.timeout})
	defer cancel()
	c.ctx = ctx
	lock, err := c.lockReports()
	if err != nil {
		return exitUsage, usageError{cmd: cmd.CommandPath(), err: err}
	}
	defer lock.Release()
	var outputErr error
	if err := c.paths().Remove(); err != nil {
		outputErr = err
	}
	started := time.Now()
	c.started = started
	run := reports.Run{Subject: s.name}
	if preflight {
		for _, subject := range s.list {
			fmt.Fprintf(stderr, "acpconform: starting %s\n", subject.Name())
			err := suite.Preflight(ctx, subject, f.startup)
			if err == nil && o.Prompt != "" && subject.Role() == suite.AgentRole {
				err = suite.AsksFirst(ctx, subject, f.startup, f.response, f.scenario, o.Prompt)
			}
			var none *suite.NothingAsked
			if errors.As(err, &none) && ctx.Err() == nil {
				run.Verdict, run.Reason = reports.NothingChecked, none.What
				run.Checks = []reports.Check{reports.NothingAsked(subject.Name(), none.What)}
				break
			}
			if err != nil && ctx.Err() == nil {
				run.Verdict, run.Reason = reports.CouldNotRun, firstLine(err.Error())
				var se *suite.StartError
				if errors.As(err, &se) {
					run.Reason = se.What
				}
				run.Checks = []reports.Check{reports.StartUp(subject.Name(), string(subject.Role()), err.Error())}
				break
			}
		}
	}
	if run.Verdict == "" && ctx.Err() == nil {
		run = c.catalogue()
	}
	run.Seconds = time.Since(started).Seconds()
	run.Shard = f.shard.shard
	run.Selection = reports.Selection{Catalogue: c.cmd, Filter: cfg.LabelFilter}
	build := version.Current()
	run.Version, run.Commit, run.Modified, run.Contract, run.Schema, run.Command = build.Version, build.Commit, build.Modified, suite.Revision(), suite.Schema(), c.command
	run.Rules = citedRules(run.Checks)
	c.settle(&run)
	return c.finish(run, outputErr), nil
}

// again is the command line that runs one check of this run again, with
// {check} where its ID goes: the same command and subject, the flags that
// shape the run, and -v; without the reports, baseline and selection.
func again(cmd *cobra.Command, argv []string) []string {
	line := []string{"acpconform", cmd.Name(), "--check", "{check}", "-v"}
	skip := map[string]bool{"check": true, "id": true, "label-filter": true, "junit": true, "json": true, "summary": true, "html": true,
		"baseline": true, "write-baseline": true, "verbose": true, "timeout": true, "shard": true, "traces": true}
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if skip[fl.Name] {
			return
		}
		if fl.Value.Type() == "bool" {
			line = append(line, "--"+fl.Name)
		} else {
			line = append(line, "--"+fl.Name, fl.Value.String())
		}
	})
	if len(argv) > 0 {
		line = append(append(line, "--"), argv...)
	}
	return line
}

// catalogue runs the checks and reads their report.
func (c *checking) catalogue() reports.Run {
	cfg := c.cfg
	if deadline, ok := c.ctx.Deadline(); ok {
		cfg.Timeout = time.Until(deadline)
	}
	cfg.Progress, cfg.Began = c.stderr, c.started // with -v, a line for each check too
	c.areasSaid = true
	cfg.OnStart = func() { fmt.Fprintf(c.stderr, "acpconform: checking %s\n", c.name) }
	var dealt []string // nil unless a shard's run deals its share
	cfg.OnDeal = func(ids []string) { dealt = ids }
	o := c.o
	o.Response, o.Scenario, o.Startup, o.Promptly = cfg.Response, cfg.Scenario, c.f.startup, c.f.promptly
	report := suite.Run(cfg, func() { catalogues(c.subjects, o) })
	if c.scope != "" {
		inScope, _ := types.ParseLabelFilter(c.scope) // config checked it
		report.SpecReports = slices.DeleteFunc(report.SpecReports, func(s types.SpecReport) bool {
			return s.LeafNodeType == types.NodeTypeIt && !inScope(s.Labels())
		})
	}
	// The filter the run used: with --shard, the shard's share of cfg's.
	cfg.LabelFilter = report.SuiteConfig.LabelFilter
	selected, _ := cfg.Selected() // config checked the filter
	run := reports.FromGinkgo(report, c.name, selected, c.ctx.Err() != nil)
	run.Dealt = dealt
	if suiteBroke(report) && c.ctx.Err() == nil {
		run.Problems = append(run.Problems, "the run itself did not complete: "+strings.Join(report.SpecialSuiteFailureReasons, "; "))
	}
	return run
}

// catalogues declares the catalogue of each subject, with o's settings.
// Subjects of one role share their checks' IDs: a container named after
// each tells their checks apart, labelled subject:N for the Nth subject
// (from 0) so that a filter can select among them.
func catalogues(subjects []suite.Subject, o scenarios.Options) {
	roles := map[suite.Role]int{}
	for _, s := range subjects {
		roles[s.Role()]++
	}
	for i, s := range subjects {
		o.Subject = s
		if roles[s.Role()] == 1 {
			scenarios.Catalogue(o)
			continue
		}
		ginkgo.Describe(s.Name(), ginkgo.Label(subjectLabel(i)), func() { scenarios.Catalogue(o) })
	}
}

// subjectLabel labels the checks of a run's Nth subject, when its role
// has several.
func subjectLabel(n int) string { return fmt.Sprintf("subject:%d", n) }

// suiteBroke reports a failure outside the checks: a suite node that
// failed, or a special failure reason of the runner's own.
func suiteBroke(r types.Report) bool {
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt && s.State.Is(types.SpecStateFailureStates) {
			return true
		}
	}
	return len(r.SpecialSuiteFailureReasons) > 0
}

func (c *checking) paths() reports.Paths {
	return reports.Paths{JUnit: c.f.junit, JSON: c.f.json, Summary: c.f.summary, HTML: c.f.htmlPath(), Stdout: c.reports}
}

// htmlPath is where report.html goes: --html's FILE, or beside the JSON
// report when --html is not given, so that a run told where its reports
// go writes none of them anywhere else.
func (f *checkFlags) htmlPath() string {
	if f.htmlFlag != nil && f.htmlFlag.Changed || f.json == "" || f.json == reports.StdoutPath {
		return f.html
	}
	return filepath.Join(filepath.Dir(f.json), "report.html")
}

// lockReports holds the run's reports until it ends: another run writing
// them meanwhile is refused, so that the reports are whole and of one run.
func (c *checking) lockReports() (*reports.FileLock, error) {
	lock, err := c.paths().Lock()
	if err != nil {
		return nil, fmt.Errorf("%w: give this run other reports (--junit, --json, --summary, --html), or let that run end", err)
	}
	return lock, nil
}

// settle decides the verdict of a run of the catalogue: interrupted when
// the run's context ended, and a hint when its selection matched nothing.
func (c *checking) settle(run *reports.Run) {
	reason := ""
	if c.ctx.Err() != nil {
		reason = interruptedReason(c.ctx, *run)
	}
	reports.Decide(run, c.baseline, reason, len(run.Problems) > 0)
	if t := reports.Count(run.Checks); run.Verdict == reports.NothingChecked && t.Deselected == len(run.Checks) {
		run.Reason += c.selectionHint() + globHint(c.f.checks, run.Checks, c.subjects)
	}
}

// finish writes the reports of a settled run, the baseline and the step
// summary, prints the summary, and returns the exit code: the verdict's,
// or 6 when a file could not be written and the verdict was no worse than
// nothing checked. Runs of the catalogue and acpconform merge end here.
func (c *checking) finish(run reports.Run, outputErr error) int {
	proc.StopAll() // before anything is written: the subject's last words are in
	for i := range run.Checks {
		if ch := &run.Checks[i]; ch.Again == "" && ch.State != reports.StateDeselected {
			ch.Again = c.againLine(*ch)
		}
	}
	errs := []error{outputErr}
	written, err := reports.Write(run, suite.Areas(), c.paths())
	errs = append(errs, err)
	baselineWritten := false
	if c.f.writeBaseline != "" {
		switch run.Verdict {
		case reports.CouldNotRun, reports.Interrupted:
			fmt.Fprintf(c.stderr, "acpconform %s: --write-baseline: not written, since the run %s\n", c.cmd, run.Verdict)
		default:
			if err := reports.WriteBaseline(c.f.writeBaseline, run.Subject, run.Checks); err != nil {
				errs = append(errs, fmt.Errorf("--write-baseline: %w", err))
			} else {
				baselineWritten = true
			}
		}
	}
	errs = append(errs, appendStepSummary(run))
	c.print(run, written, baselineWritten)
	code := run.ExitCode()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(c.stderr, "acpconform %s: %v\n", c.cmd, err)
		if code == exitOK || code == reports.ExitNothingChecked || code == reports.ExitStaleBaseline {
			code = exitOutput
		}
	}
	return code
}

// selectionHint says why a selection may have matched nothing: an ID of
// another role, or an area that does not exist.
func (c *checking) selectionHint() string {
	roles := map[suite.Role]bool{}
	var checked []string
	for _, s := range c.subjects {
		if !roles[s.Role()] {
			checked = append(checked, string(s.Role()))
		}
		roles[s.Role()] = true
	}
	var others []string
	for _, id := range c.f.ids {
		if r, ok := suite.Lookup(strings.TrimSpace(id)); ok && !roles[r.Role] {
			others = append(others, fmt.Sprintf("%s is a rule of the %s role", r.ID, r.Role))
		}
	}
	if len(others) > 0 {
		return fmt.Sprintf("; %s, and this run checks the %s role", strings.Join(others, ", "), strings.Join(checked, " and "))
	}
	if c.f.shard.shard.Count > 1 {
		return fmt.Sprintf("; --shard %s: a shard has no share when the selection has fewer checks than shards", c.f.shard.shard)
	}
	if c.f.labelFilter != "" {
		return fmt.Sprintf("; the areas are %s (acpconform list shows every rule)", strings.Join(suite.Areas(), ", "))
	}
	return ""
}

// interruptedReason says what stopped the run and where it was.
func interruptedReason(ctx context.Context, run reports.Run) string {
	why := context.Cause(ctx).Error()
	for _, ch := range run.Checks {
		if ch.State == reports.StateInterrupted {
			return why + ", during the check " + elide.Head(ch.Name, 200)
		}
	}
	if len(run.Checks) == 0 {
		return why + ", while the subject was starting"
	}
	return why
}

// print prints the summary (see [reports.Terminal]): the verdict, totals,
// a line per area, why checks were skipped, every cause of failures, the
// baseline's judgement, and the files written.
func (c *checking) print(run reports.Run, written []string, baselineWritten bool) {
	t := reports.Terminal{Out: c.stdout, Err: c.stderr, Command: c.cmd, Areas: suite.Areas(),
		Verbose: c.cfg.Verbose, AreasSaid: c.areasSaid, Baseline: c.baseline, Width: c.width}
	wrote := ""
	if baselineWritten {
		wrote = c.f.writeBaseline
	}
	t.Summary(run, written, wrote)
}

// againLine is the command line that runs ch again, alone, "" when there
// is none (a check without an ID, or acpconform merge). In a run of
// several subjects of one role (acpconform run's two relays), a check ID
// names a check of each, so the line selects ch's subject too.
func (c *checking) againLine(ch reports.Check) string {
	if ch.ID == "" || len(c.again) == 0 {
		return ""
	}
	var line []string
	for _, w := range c.again {
		line = append(line, strings.ReplaceAll(w, "{check}", ch.ID))
		if w == "{check}" {
			if label := c.subjectOf(ch); label != "" {
				line = append(line, "--label-filter", label)
			}
		}
	}
	return bridge.CommandLine(line)
}

// subjectOf is the label of ch's subject (see catalogues), "" when the
// run has no other subject of its role: the check's name starts with its
// subject's.
func (c *checking) subjectOf(ch reports.Check) string {
	roles := map[suite.Role]int{}
	for _, s := range c.subjects {
		roles[s.Role()]++
	}
	label, longest := "", 0
	for i, s := range c.subjects {
		if _, within := reports.Within(ch.Name, s.Name()); string(s.Role()) == ch.Role && roles[s.Role()] > 1 && within && len(s.Name()) > longest {
			label, longest = subjectLabel(i), len(s.Name())
		}
	}
	return label
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return elide.Head(line, 1000)
}

// appendStepSummary adds the Markdown summary to a GitHub Actions job
// summary, when the run has one.
func appendStepSummary(run reports.Run) error {
	target := os.Getenv("GITHUB_STEP_SUMMARY")
	if target == "" {
		return nil
	}
	var md bytes.Buffer
	if err := reports.WriteMarkdown(&md, run, suite.Areas()); err != nil {
		return err
	}
	md.WriteByte('\n')
	f, err := os.OpenFile(target, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(md.Bytes())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("$GITHUB_STEP_SUMMARY: %w", err)
	}
	return nil
}

// citedRules are the contract's rules that checks cite, in the contract's
// order, each with its level and source, for the reports.
func citedRules(checks []reports.Check) []reports.Rule {
	cited := map[string]bool{}
	for _, c := range checks {
		for _, id := range c.Rules {
			cited[id] = true
		}
	}
	var out []reports.Rule
	for _, r := range suite.Rules() {
		if cited[r.ID] {
			out = append(out, reports.Rule{ID: r.ID, Level: string(r.Level), Role: string(r.Role), Source: r.Source})
		}
	}
	return out
}
