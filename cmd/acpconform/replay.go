package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/replay"
	"github.com/acpconform/acpconform/suite"
	"github.com/acpconform/acpconform/trace"
)

const replayLong = `
Plays one side of a recorded session to a new build of the other and says
where its messages first differ from the recorded ones: a real session kept
as a regression test. With --role agent (the default) the recorded client's
messages go to the agent command, which acpconform starts and speaks to on
its stdio; with --role client the recorded agent's messages go to the client
command, which reaches acpconform through {agent} or {url} as in acpconform
client, or on its own stdio.

Each side's messages go in the recorded order; before each message the
subject recorded, replay reads the subject's next one and compares the two
as JSON values. What may differ between two runs does not count: times,
spacing and key order; the id of each request the subject sends (the
recorded answer goes to the new id: each elicitation/create gets the answer
recorded for the elicitation/create in its place, in order); and the ids of
sessions an agent opens, which stand for the recorded ones from then on.
Anything else is the first difference, named by its message, its trace line
and the path of the member that differs (docs/traces.md).

Exit codes: 0 the subject sent every recorded message alike, 1 a message
differs (or did not come within --response-timeout; the first, within
--startup-timeout), 2 usage error, 3 the subject could not be started.`

func (a *app) replayCommand() *cobra.Command {
	var role string
	var response, startup time.Duration
	cmd := a.command("replay [flags] TRACE -- COMMAND...", "Replay a recorded session to a new build and show the first difference (docs/traces.md)", replayLong,
		func(cmd *cobra.Command, args []string) (int, error) {
			dash := cmd.ArgsLenAtDash()
			if len(args) == 0 || dash != 1 || len(args) < 2 {
				return exitUsage, usagef(cmd, "name the trace, then the command after --: replay t.jsonl -- my-agent --acp")
			}
			file, argv := args[0], args[1:]
			if role != "agent" && role != "client" {
				return exitUsage, usagef(cmd, "--role %q: replay to an agent or a client", role)
			}
			if err := checkCommand(argv); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			if err := positive(map[string]time.Duration{"response-timeout": response, "startup-timeout": startup}); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			t, err := readTraceFile(file)
			if err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			subject := suite.Command(argv, suite.Role(role), wire.Options{})
			ctx := a.ctx
			started, stop := context.WithTimeout(ctx, startup)
			link, err := subject.Connect(started)
			stop()
			if err != nil {
				fmt.Fprintf(a.stderr, "acpconform replay: the %s did not start: %s\n", role, elide.Head(err.Error(), 2000))
				return exitNoConnection, nil
			}
			defer link.Close()
			r, err := replay.Play(ctx, link.Conn, t, trace.Side(role), startup, response)
			if err != nil {
				fmt.Fprintf(a.stderr, "acpconform replay: %v\n", err)
				return exitNoConnection, nil
			}
			if d := r.Difference; d != nil {
				fmt.Fprintf(a.stdout, "acpconform replay: %s: the %s's message %d (trace line %d) differs: %s\n", file, role, d.Message, d.Line, d.Why)
				if d.Recorded != nil {
					fmt.Fprintf(a.stdout, "  recorded: %s\n", quoteFrame(d.Recorded))
				}
				if d.Got != nil {
					fmt.Fprintf(a.stdout, "  now:      %s\n", quoteFrame(d.Got))
				}
				if link.Diagnostics != nil {
					if said := link.Diagnostics(); said != "" {
						fmt.Fprintf(a.stdout, "  the %s's stderr ended: %q\n", role, elide.Tail(said, 1000))
					}
				}
				return exitFailed, nil
			}
			fmt.Fprintf(a.stdout, "acpconform replay: %s: the %s sent the %d messages recorded of it alike (%d played to it)\n", file, role, r.Compared, r.Sent)
			return exitOK, nil
		})
	cmd.Flags().StringVar(&role, "role", "agent", "the side to replay to: `agent` (the recorded client plays) or client (the recorded agent plays)")
	cmd.Flags().DurationVar(&response, "response-timeout", suite.DefaultResponse, "bound on each wait for the subject's next message")
	cmd.Flags().DurationVar(&startup, "startup-timeout", suite.DefaultStartup, "bound on the subject's start: its process, and its first message")
	return cmd
}

// quoteFrame is a frame for a terminal: quoted, bounded.
func quoteFrame(b []byte) string { return fmt.Sprintf("%q", elide.Head(string(b), 2000)) }
