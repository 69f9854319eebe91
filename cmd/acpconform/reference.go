package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/kit/probeclient"
)

func (a *app) referenceAgentCommand() *cobra.Command {
	cmd := a.command("reference-agent", "Serve the reference ask_choice as an ACP agent on stdio (docs/probe.md §1)", `
Serves the reference ask_choice as an ACP agent on stdin/stdout. Every prompt
is a probe request (docs/probe.md §1); the outcome comes back as an agent
message. It is the passing subject of acpconform agent.`,
		func(cmd *cobra.Command, _ []string) (int, error) {
			return probeagent.Run(a.ctx, nil, a.stdin, a.protocolOut, a.stderr), nil
		})
	cmd.Args = cobra.NoArgs
	return cmd
}

func (a *app) referenceClientCommand() *cobra.Command {
	var o probeclient.Options
	var url, agent string
	cmd := a.command("reference-client [flags]", "Play the reference client of docs/probe.md §2 on stdio, WebSocket or a spawned agent", `
Plays the reference client of docs/probe.md §2 on stdin/stdout, against a
WebSocket agent (--websocket URL), or, as an editor does, against an agent it
starts (--agent CMD, run by sh -c without the CI runner's file commands and
tokens, as every subject is, its stderr passed on; when the turn ends
its stdin is closed and it gets a grace period to exit). It advertises form elicitation, opens a session, sends one
prompt and answers every elicitation/create as its scripted-user instruction
("_meta": {"acpconform/user": {"action": ..., "pick": ...}}) says; without
one it cancels, as a person closing the dialog; an instruction it cannot
follow (a pick that names no option, an unknown action) it refuses with
-32602. It exits 0 when the prompt turn ends, 1 on an error. It is the passing subject of acpconform client;
--broken picks a variant that breaks one client rule on purpose.`,
		func(cmd *cobra.Command, _ []string) (int, error) {
			if err := o.Check(); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			if url != "" {
				if err := webSocketURL("--websocket", url); err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
			}
			switch {
			case url != "" && agent != "":
				return exitUsage, usagef(cmd, "--websocket and --agent exclude each other")
			case agent != "":
				return a.playWithAgent(o, agent), nil
			}
			return probeclient.Main(a.ctx, o, url, a.stdin, a.protocolOut, a.stderr), nil
		})
	cmd.Args = cobra.NoArgs
	cmd.Flags().StringVar(&o.Prompt, "prompt", probeclient.DefaultPrompt, "the prompt's `TEXT`")
	cmd.Flags().BoolVar(&o.NoForm, "no-form", false, "advertise no form elicitation")
	cmd.Flags().BoolVar(&o.NoURL, "no-url", false, "advertise form elicitation only, no URL elicitation")
	cmd.Flags().StringVar(&o.Broken, "broken", "", "break one client rule on purpose: "+strings.Join(probeclient.Brokens, ", "))
	cmd.Flags().StringVar(&url, "websocket", "", "connect to an agent at this WebSocket `URL` instead of using stdio")
	cmd.Flags().StringVar(&agent, "agent", "", "start this `COMMAND` (a line for sh -c) as the agent, on its stdio, instead of using stdio")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", probeclient.DefaultTimeout, "bound on the whole session")
	return cmd
}

// agentGrace is how long the agent the reference client started gets to
// exit once its stdin is closed, before it is killed.
const agentGrace = 5 * time.Second

// playWithAgent starts line through sh -c as the agent, plays the reference
// client against it on its stdio, then closes its stdin and lets it exit,
// as an editor does when a session ends.
func (a *app) playWithAgent(o probeclient.Options, line string) int {
	log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c := exec.Command("sh", "-c", line)
	c.Stderr = a.stderr
	c.Env = proc.SubjectEnviron(os.Environ()) // the agent is under test, not a step of a CI job
	in, err := c.StdinPipe()
	if err != nil {
		fmt.Fprintf(a.stderr, "reference-client: %v\n", err)
		return 1
	}
	out, err := c.StdoutPipe()
	if err != nil {
		fmt.Fprintf(a.stderr, "reference-client: %v\n", err)
		return 1
	}
	if err := c.Start(); err != nil {
		fmt.Fprintf(a.stderr, "reference-client: start the agent: %v\n", err)
		return 1
	}
	played := probeclient.Play(a.ctx, in, out, o, log) // bounded by o.Timeout
	in.Close()                                         // the session is over: the agent's input ends
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	grace := time.NewTimer(agentGrace)
	defer grace.Stop()
	select {
	case <-exited:
	case <-grace.C:
		c.Process.Kill()
		<-exited
	}
	if played != nil {
		fmt.Fprintf(a.stderr, "reference-client: %v\n", played)
		return 1
	}
	return 0
}
