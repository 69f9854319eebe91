package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/internal/version"
	"github.com/acpconform/acpconform/trace"
)

func (a *app) recordCommand() *cobra.Command {
	var path string
	var secretEnv, secretPatterns []string
	cmd := a.command("record --trace FILE [flags] -- AGENT COMMAND...", "Stand in for an agent and record the session (docs/traces.md)", `
Starts the agent command and relays the session between it and the client
that started acpconform record, on stdio, every byte unchanged both ways,
while it writes a trace of it to FILE: each message with the side that sent
it, the time since the recording began and its exact bytes; the agent's
stderr, which also passes on to the client's; and the end of each side. Put
it in front of an agent command in an editor's settings (docs/traces.md
shows Zed's agent_servers and acpx) and use the editor as usual.

One argument that names no program and holds a space is a command line,
run with sh -c: acpconform relay -- acpconform record --trace t.jsonl --
{agent} records a relay check's sessions.

A message is written to the trace just before it is passed on (a few
microseconds), so the trace's order is that of cause and effect: an answer
never comes before its request. The trace is written a line at a time, so a
recorder that crashes loses at most the message it was writing. The file is readable by its owner only.

Secrets never reach the file: --secret-env NAME replaces the value of the
environment variable NAME, and --secret-pattern REGEX what the regular
expression matches, with a symbolic handle such as ${secret:NAME} (in the
command, the messages and stderr; the header lists the handles). A named
variable that is unset or shorter than 4 bytes is a usage error.

The recorder ends with the agent: when the agent closes its stdout or
exits, or, after the client closes the agent's stdin, when the agent has
had 2 seconds to end (then it is stopped). It exits with the agent's exit
status when the agent exited; 2 usage error; 3 the agent could not be
started or the trace could not be created; 1 otherwise.`,
		func(cmd *cobra.Command, argv []string) (int, error) {
			if err := checkCommand(argv); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			if path == "" {
				return exitUsage, usagef(cmd, "--trace: name the file to write the trace to")
			}
			redactor, err := trace.NewRedactor(secretEnv, secretPatterns, os.Getenv)
			if err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			return a.record(path, argv, redactor), nil
		})
	cmd.Flags().StringVar(&path, "trace", "", "write the trace to this `FILE` (replaced if it exists)")
	cmd.Flags().StringArrayVar(&secretEnv, "secret-env", nil, "keep the value of this environment `VARIABLE` out of the trace (repeatable)")
	cmd.Flags().StringArrayVar(&secretPatterns, "secret-pattern", nil, "keep what this regular expression matches out of the trace (repeatable; Go's syntax)")
	return cmd
}

// record relays the session to the agent argv and writes its trace.
func (a *app) record(path string, argv []string, redactor *trace.Redactor) int {
	signal.Ignore(syscall.SIGPIPE) // a client that stops reading ends the session, not the recorder
	w, file, err := trace.Create(path, trace.Header{Recorder: "acpconform " + version.String(), Command: argv}, redactor)
	if err != nil {
		fmt.Fprintf(a.stderr, "acpconform record: %v\n", err)
		return exitNoConnection
	}
	defer file.Close()
	p, err := proc.StartPassingStderr(commandLine(argv), stderrRecorder{a.stderr, w})
	if err != nil {
		w.End(trace.Agent, "did not start: "+err.Error())
		fmt.Fprintf(a.stderr, "acpconform record: %v\n", err)
		return exitNoConnection
	}
	clientEnded := make(chan struct{})
	go func() {
		_ = w.Pass(trace.Client, a.stdin, p.Stdin)
		p.Stdin.Close() // the agent reads the end of the session
		close(clientEnded)
	}()
	agentEnded := make(chan struct{})
	go func() {
		_ = w.Pass(trace.Agent, p.Stdout, a.protocolOut)
		close(agentEnded)
	}()

	select {
	case <-agentEnded:
	case <-p.Exited():
	case <-clientEnded:
		// The client is gone: the agent has its stdin's end and a grace
		// to finish (proc.Stop goes on to SIGTERM and SIGKILL).
		select {
		case <-agentEnded:
		case <-p.Exited():
		case <-time.After(proc.StopGrace):
		case <-a.ctx.Done():
		}
	case <-a.ctx.Done():
		w.End(trace.Client, fmt.Sprintf("the recorder was stopped: %v", context.Cause(a.ctx)))
	}
	// What an agent that exited wrote reaches the client before Stop
	// closes its output, unless a process it left behind holds that open.
	select {
	case <-p.Exited():
		select {
		case <-agentEnded:
		case <-time.After(proc.StopGrace):
		case <-a.ctx.Done():
		}
	default:
	}
	_ = p.Stop()
	w.End(trace.Agent, p.ExitDescription())
	if err := w.Err(); err != nil {
		fmt.Fprintf(a.stderr, "acpconform record: %s: %v\n", path, err)
	}
	var exit *exec.ExitError
	if errors.As(p.Err(), &exit) && exit.ExitCode() >= 0 {
		return exit.ExitCode()
	}
	if p.Err() == nil {
		return exitOK
	}
	return exitFailed
}

// commandLine is argv, unless it is one argument that names no program
// and holds a space: a command line, as {agent} is, which sh -c runs.
func commandLine(argv []string) []string {
	if len(argv) == 1 && strings.ContainsAny(argv[0], " \t") {
		if _, err := exec.LookPath(argv[0]); err != nil {
			return []string{"sh", "-c", argv[0]}
		}
	}
	return argv
}

// stderrRecorder passes the agent's stderr on and records it.
type stderrRecorder struct {
	pass io.Writer
	w    *trace.Writer
}

func (s stderrRecorder) Write(b []byte) (int, error) {
	s.w.Stderr(b)
	return s.pass.Write(b)
}
