package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/inputfile"
	"github.com/acpconform/acpconform/internal/version"
	"github.com/acpconform/acpconform/judge"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
	"github.com/acpconform/acpconform/trace"
)

const judgeLong = `
Judges recorded sessions: traces written by acpconform record, or by a run
with --traces DIR. Every rule that can be decided from what the client and
the agent sent each other is reported passed, failed (quoting the frame it
rests on, with its trace and line) or not exercised by these traces; every
rule of the role that no trace can show (what the application was told,
what the user saw) is listed as not visible in a trace, never passed. The
reports and exit codes are a live run's (acpconform help exit-codes): a
trace that exercises no rule is nothing checked.

--role says whose conformance the verdict is about: the agent's (the
default) or the client's. A TRACE that is a directory stands for its
*.jsonl files, without those --traces named for the other role
(client-0002.jsonl when judging the agent). The rules are decided by the
code the live checks use (docs/traces.md says which rules, and what part of
each, a trace shows). A trace that cannot be read is a usage error naming
its file and line (exit 2).`

// maxTrace bounds what judge reads of one trace.
const maxTrace = 256 << 20

func (a *app) judgeCommand() *cobra.Command {
	var f checkFlags
	var role string
	var response time.Duration
	cmd := a.command("judge [flags] TRACE...", "Judge recorded sessions against the rules a trace can show (docs/traces.md)", judgeLong,
		func(cmd *cobra.Command, args []string) (int, error) {
			if role != "agent" && role != "client" {
				return exitUsage, usagef(cmd, "--role %q: judge the agent or the client", role)
			}
			if len(args) == 0 {
				return exitUsage, usagef(cmd, "name the traces to judge (files, or directories of them)")
			}
			if err := positive(map[string]time.Duration{"response-timeout": response}); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			if f.toStdout() > 1 {
				return exitUsage, usagef(cmd, "only one of --junit, --json, --summary and --html can be - (stdout)")
			}
			files, err := traceFiles(args, role)
			if err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			if err := outputIsInput([]string{f.junit, f.json, f.summary, f.htmlPath(), f.writeBaseline}, files); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			var sessions []judge.Session
			var command []string
			for _, file := range files {
				t, err := readTraceFile(file)
				if err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
				if command == nil {
					command = t.Header.Command
				}
				sessions = append(sessions, judge.FromTrace(file, t))
			}
			run := judgedRun(role, files, judge.Judge(judge.Options{Role: role, Response: response}, sessions...))
			run.Command = strings.Join(command, " ")
			return a.report(cmd, &f, run, "")
		})
	cmd.Flags().StringVar(&role, "role", "agent", "whose conformance the verdict is about: `agent` or client")
	cmd.Flags().DurationVar(&response, "response-timeout", suite.DefaultResponse, "how long a client may take to answer an elicitation the agent cancelled (ELI-7), as a live check waits")
	f.registerReports(cmd.Flags())
	return cmd
}

// traceFiles are the files args name: each file, and the *.jsonl of each
// directory but those --traces wrote for the other role.
func traceFiles(args []string, role string) ([]string, error) {
	other := "client"
	if role == "client" {
		other = "agent"
	}
	var files []string
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, arg)
			continue
		}
		in, err := filepath.Glob(filepath.Join(arg, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		in = slices.DeleteFunc(in, func(p string) bool { return strings.HasPrefix(filepath.Base(p), other+"-") })
		if len(in) == 0 {
			return nil, fmt.Errorf("%s: a directory without a trace of the %s (*.jsonl)", arg, role)
		}
		files = append(files, in...)
	}
	return files, nil
}

// readTraceFile reads one trace, naming the file in its error.
func readTraceFile(file string) (trace.Trace, error) {
	data, err := inputfile.Read(file, maxTrace)
	var large *inputfile.TooLargeError
	switch {
	case errors.As(err, &large):
		return trace.Trace{}, fmt.Errorf("%s: larger than %s, which judge does not read", file, formatBytes(maxTrace))
	case err != nil:
		return trace.Trace{}, err
	}
	t, err := trace.Read(bytes.NewReader(data))
	if err != nil {
		return trace.Trace{}, fmt.Errorf("%s:%w", file, err)
	}
	return t, nil
}

// judgedRun is the judge's results as a run of checks: one a judge's
// check, and one for each rule of the role no trace can show.
func judgedRun(role string, files []string, results []judge.Result) reports.Run {
	subject := fmt.Sprintf("the %s of %s", role, files[0])
	if len(files) > 1 {
		subject = fmt.Sprintf("the %s of %d traces", role, len(files))
	}
	run := reports.Run{Subject: subject, Selection: reports.Selection{Catalogue: "judge"}}
	build := version.Current()
	run.Version, run.Commit, run.Modified, run.Contract, run.Schema = build.Version, build.Commit, build.Modified, suite.Revision(), suite.Schema()
	decided := map[string]bool{}
	for _, r := range results {
		decided[r.Rule] = true
		rule := suite.MustLookup(r.Rule)
		ch := reports.Check{ID: r.ID, Name: r.Title, Area: rule.Area, Rules: []string{r.Rule}, Level: string(rule.Level), Role: role, Location: r.Where()}
		switch r.State {
		case judge.Passed:
			ch.State = reports.StatePassed
		case judge.Failed:
			ch.State, ch.Failure, ch.Transcript = reports.StateFailed, strings.Join(r.Why, "\n"), transcriptOf(r, role)
		default:
			ch.State, ch.SkipReason = reports.StateSkipped, "not exercised by these traces: "+strings.Join(r.Why, "; ")
		}
		run.Checks = append(run.Checks, ch)
	}
	for _, rule := range suite.Rules() {
		if string(rule.Role) != role || decided[rule.ID] {
			continue
		}
		run.Checks = append(run.Checks, reports.Check{ID: rule.ID + "/not-visible-in-a-trace", Name: "what " + rule.ID + " decides is not visible in a trace",
			Area: rule.Area, Rules: []string{rule.ID}, Level: string(rule.Level), Role: role, State: reports.StateSkipped,
			SkipReason: "not visible in a trace: it rests on what the " + role + "'s application or user was given or did, which only a live check (acpconform " + role + ") sees"})
	}
	run.Rules = citedRules(run.Checks)
	return run
}

// transcriptOf is the frames a failure rests on, as a live check's
// transcript shows frames: -> what the other side sent, <- what the
// subject sent; the end of a side as the transcript notes a close.
func transcriptOf(r judge.Result, role string) string {
	var b strings.Builder
	for _, f := range r.Frames {
		dir := "->"
		if string(f.From) == role {
			dir = "<-"
		}
		if f.Ended {
			fmt.Fprintf(&b, "+%.4fs %s  (closed: %s)\n", f.At.Seconds(), dir, f.Why)
			continue
		}
		fmt.Fprintf(&b, "+%.4fs %s %s\n", f.At.Seconds(), dir, f.Data)
	}
	return b.String()
}
