package main

import (
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/reference/probeagent"
	"github.com/acpconform/acpconform/reference/probeclient"
)

func (a *app) referenceAgentCommand() *cobra.Command {
	cmd := a.command("reference-agent", "Serve the reference ask_choice as an ACP agent on stdio (docs/probe.md §1)", `
Serves the reference ask_choice as an ACP agent on stdin/stdout. Every prompt
is a probe request (docs/probe.md §1); the outcome comes back as an agent
message. It is the passing subject of acpconform agent.`,
		func(cmd *cobra.Command, _ []string) (int, error) {
			return probeagent.Run(a.ctx, nil, a.stdin, a.stdout, a.stderr), nil
		})
	cmd.Args = cobra.NoArgs
	return cmd
}

func (a *app) referenceClientCommand() *cobra.Command {
	var o probeclient.Options
	var url string
	cmd := a.command("reference-client [flags]", "Play the reference client of docs/probe.md §2 on stdio or WebSocket", `
Plays the reference client of docs/probe.md §2 on stdin/stdout, or against a
WebSocket agent: advertises form elicitation, opens a session, sends one
prompt and answers every elicitation/create as its scripted-user instruction
("_meta": {"acpconform/user": {"action": ..., "pick": ...}}) says; without
one it cancels, as a person closing the dialog; an instruction it cannot
follow (a pick that names no option, an unknown action) it refuses with
-32602. It exits 0 when the prompt turn ends, 1 on an error. It is the passing subject of acpconform client;
--broken picks a variant that breaks one client rule on purpose.`,
		func(cmd *cobra.Command, _ []string) (int, error) {
			if o.Broken != "" && !slices.Contains(probeclient.Brokens, o.Broken) {
				return exitUsage, usagef(cmd, "--broken %q is none of %s", o.Broken, strings.Join(probeclient.Brokens, ", "))
			}
			if url != "" {
				if err := webSocketURL("--websocket", url); err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
			}
			return probeclient.Main(a.ctx, o, url, a.stdin, a.stdout, a.stderr), nil
		})
	cmd.Args = cobra.NoArgs
	cmd.Flags().StringVar(&o.Prompt, "prompt", "Please ask me to choose.", "the prompt's `TEXT`")
	cmd.Flags().BoolVar(&o.NoForm, "no-form", false, "advertise no form elicitation")
	cmd.Flags().StringVar(&o.Broken, "broken", "", "break one client rule on purpose: "+strings.Join(probeclient.Brokens, ", "))
	cmd.Flags().StringVar(&url, "websocket", "", "connect to an agent at this WebSocket `URL` instead of using stdio")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", time.Minute, "bound on the whole session")
	return cmd
}
