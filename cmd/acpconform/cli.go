package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/internal/version"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/suite"
)

// app is one invocation of acpconform: its context and standard streams,
// and the exit code the command it runs decides.
//
// stdout and stderr are for people, and may show what subjects said, so
// nothing written there can be a CI runner's workflow command
// (elide.NoCommands). A stream that carries a format of its own goes
// through protocolOut: the ACP messages of a peer on stdio, a report or
// a JSON listing on stdout (each guarded in its own format's escapes,
// reports.Write's), and the annotations diff --github writes on purpose.
type app struct {
	ctx         context.Context
	stdin       io.Reader
	stdout      io.Writer
	stderr      io.Writer
	protocolOut io.Writer
	code        int
}

// usageError is a command line acpconform cannot run: exit code 2, one
// line naming the flag or argument.
type usageError struct {
	cmd string // "acpconform agent"
	err error
}

func (u usageError) Error() string {
	return fmt.Sprintf("%s: %v (see %s --help)", u.cmd, u.err, u.cmd)
}

// usagef is a usage error of cmd.
func usagef(cmd *cobra.Command, format string, args ...any) error {
	return usageError{cmd: cmd.CommandPath(), err: fmt.Errorf(format, args...)}
}

// run runs the command args name and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{ctx: ctx, stdin: stdin, protocolOut: stdout,
		stdout: elide.NoCommands(stdout, elide.TextEscapes), stderr: elide.NoCommands(stderr, elide.TextEscapes)}
	stderr = a.stderr
	root := a.root()
	root.SetArgs(longFlags(root, args))
	if err := root.ExecuteContext(ctx); err != nil {
		var u usageError
		if !errors.As(err, &u) {
			name := "acpconform"
			if c, _, ferr := root.Find(args); ferr == nil && c != root {
				name += " " + c.Name()
			}
			err = fmt.Errorf("%s: %v (see %s --help)", name, err, name)
		}
		// A usage error may quote a file (a shard's report, a baseline):
		// one line, bounded and escaped.
		fmt.Fprintln(stderr, elide.EscapeLine(elide.Head(oneLine(err.Error()), maxUsageError)))
		return exitUsage
	}
	return a.code
}

// maxUsageError bounds a usage error: a few lines of a terminal.
const maxUsageError = 2 << 10

// oneLine joins a message's lines, so a usage error is one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// singleDash is a long flag written with one dash, as Go's flag package
// takes them: -junit, -response-timeout=2s.
var singleDash = regexp.MustCompile(`^-([a-z][a-z-]+)(=.*)?$`)

// longFlags lets every long flag be written with one dash or two, as
// acpconform took them before it was built on cobra: -help and -junit are
// --help and --junit. Only names the command knows are rewritten, and
// nothing after --, which belongs to the subject's command line.
func longFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil {
		cmd = root
	}
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if m := singleDash.FindStringSubmatch(a); m != nil {
			if m[1] == "help" || cmd.Flags().Lookup(m[1]) != nil || cmd.InheritedFlags().Lookup(m[1]) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}

// root builds the command tree.
func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "acpconform",
		Short: "Check ACP agents, clients and relays against the typed-choice elicitation contract",
		Long: `acpconform checks implementations of typed-choice elicitation over the Agent
Client Protocol (ACP) against its contract: agents (acpconform agent),
clients (acpconform client) and relays (acpconform relay). acpconform run
checks the reference built into this binary; with --shard I/N a run is
split across machines, and acpconform merge combines their reports. Every failure names its rule,
says why, and how to run it again; docs/cli.md has every flag and exit code.`,
		Version:       fmt.Sprintf("%s\ncontract revision %s, ACP schema %s, probe contract %d revision %d", version.String(), suite.Revision(), suite.Schema(), probe.Version, probe.Revision),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          unknownCommand,
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(a.stderr)
			_ = cmd.Help()
			return usagef(cmd, "name a command")
		},
	}
	root.SetVersionTemplate("acpconform {{.Version}}\n")
	root.Flags().Bool("version", false, "print acpconform's version and the commit it was built from, the contract revision it checks and the ACP schema release that contract follows") // no -v: that is --verbose
	root.SetIn(a.stdin)
	root.SetOut(a.protocolOut) // cobra's own words (help, --version) and completions, whose last line is ":4"
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{cmd: cmd.CommandPath(), err: err}
	})
	root.AddGroup(&cobra.Group{ID: "check", Title: "Checking implementations:"}, &cobra.Group{ID: "serve", Title: "Reference peers and relays:"})
	for _, c := range []*cobra.Command{a.runCommand(), a.agentCommand(), a.clientCommand(), a.relayCommand(), a.recordCommand(), a.judgeCommand(), a.replayCommand(), a.mergeCommand(), a.diffCommand(), a.listCommand(), a.explainCommand(), a.initCommand()} {
		c.GroupID = "check"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{a.referenceAgentCommand(), a.referenceClientCommand(), a.mockCommand(), a.serveCommand(), a.serveCommandCommand(), a.mirrorCommand(), a.bridgeCommand(), a.schemaCommand()} {
		c.GroupID = "serve"
		root.AddCommand(c)
	}
	root.AddCommand(a.versionCommand(root), exitCodesTopic())
	completeIDs(a.ctx, root)
	return root
}

// command makes a subcommand whose body returns the exit code. Its flags
// may come before or after its arguments; -- ends them.
func (a *app) command(use, short, long string, body func(cmd *cobra.Command, args []string) (int, error)) *cobra.Command {
	return &cobra.Command{
		Use: use, Short: short, Long: strings.TrimSpace(long),
		SilenceErrors: true, SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			code, err := body(cmd, args)
			a.code = code
			return err
		},
	}
}

// versionCommand is `acpconform version`, which says what --version says.
func (a *app) versionCommand(root *cobra.Command) *cobra.Command {
	cmd := a.command("version", "Print acpconform's version, as --version does", `
Prints what acpconform --version prints: acpconform's version and the
commit it was built from, the contract revision it checks, the ACP schema
release that contract follows and the probe contract's version. Exits 0,
and 6 when stdout cannot be written.`,
		func(cmd *cobra.Command, _ []string) (int, error) {
			if _, err := fmt.Fprintf(cmd.OutOrStdout(), "acpconform %s\n", root.Version); err != nil {
				fmt.Fprintf(a.stderr, "acpconform version: %v\n", err)
				return exitOutput, nil
			}
			return exitOK, nil
		})
	cmd.Args = cobra.NoArgs
	return cmd
}

// exitCodesTopic is `acpconform help exit-codes`.
func exitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What each exit code of acpconform means",
		Long:  exitCodes,
	}
}

// exitCodes is the one table of exit codes; docs/cli.md holds the same.
const exitCodes = `Every command that runs checks (run, agent, client, relay), and merge, which
combines the reports of a run's shards, exits with one of:

  0  conformant: at least one MUST check ran, and none failed (SHOULD
     failures are reported, never fatal; a skipped check never counts as
     passed)
  1  not conformant: a MUST check failed; with --baseline, one the
     baseline does not list
  2  usage error: an unknown flag or a value out of range, a malformed URL,
     an empty command, a malformed script or baseline (a reason still the
     TODO --write-baseline wrote included), or report files another run is
     writing; one line says which
  3  could not run: the subject did not start, connect, or answer initialize
     within --startup-timeout; the message says what it did instead, with
     the end of its stderr; or acpconform's own environment (such as a
     TMPDIR that cannot hold the bridge's socket) kept it from starting
     the subject, and the message says so
  4  nothing was checked: no MUST check ran (the selection matched nothing,
     every selected check was skipped, or only SHOULD checks ran)
  5  interrupted: SIGINT, SIGTERM, SIGHUP or --timeout, in any phase; the
     reports are still written
  6  a report, the baseline or the step summary could not be written
  7  conformant, but the --baseline is stale: it lists a check that passes
     now, or names no check of the run; take those entries off (the
     verdict is the subject's, the stale entries the baseline's)

When several apply, the first in the order 2, 5, 3, 1, 6, 7, 4, 0 is the
code.
Other commands exit 0 when they did their job, 2 on a usage error, and say
in their help what else they return.`
