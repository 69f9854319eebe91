package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

// serveFlags are the flags of serve and serve-command.
type serveFlags struct {
	listen, mount, tokenEnv string
	maxFrame                byteSize
}

func (f *serveFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "the `ADDRESS` to serve on")
	fs.StringVar(&f.mount, "mount", relay.DefaultMount, "serve metadata at this `PATH` and the WebSocket at PATH/ws")
	fs.StringVar(&f.tokenEnv, "token-env", "", "require 'Authorization: Bearer' and the value of this environment `VARIABLE`")
	f.maxFrame = byteSize{n: wire.DefaultMaxFrame, max: maxSize}
	fs.Var(&f.maxFrame, "max-frame", "refuse frames above this `SIZE` (bytes, or with KiB, MiB, GiB)")
}

func (f *serveFlags) options(name string) (relay.Options, error) {
	o := relay.Options{Mount: f.mount, MaxFrame: f.maxFrame.n, Name: name}
	if f.tokenEnv != "" {
		if o.Token = os.Getenv(f.tokenEnv); o.Token == "" {
			return o, fmt.Errorf("--token-env: $%s is empty or unset", f.tokenEnv)
		}
	}
	return o, nil
}

// serveUntilDone serves agent, prints the WebSocket URL, and serves until
// the context ends (SIGINT, SIGTERM).
func (a *app) serveUntilDone(cmd *cobra.Command, f *serveFlags, agent relay.Agent) (int, error) {
	opts, err := f.options(cmd.Name())
	if err != nil {
		return exitUsage, usagef(cmd, "%v", err)
	}
	srv, err := relay.NewServer(f.listen, agent, opts)
	if err != nil {
		return exitUsage, usagef(cmd, "--listen: %v", err)
	}
	fmt.Fprintln(a.stdout, srv.URL)
	<-a.ctx.Done()
	srv.Close()
	return exitOK, nil
}

func (a *app) serveCommand() *cobra.Command {
	var f serveFlags
	cmd := a.command("serve [flags]", "Serve the reference agent over WebSocket", `
Serves the reference agent (docs/probe.md §1) over WebSocket: the WebSocket
at <mount>/ws, metadata JSON at <mount>, health at /healthz; with
--token-env, the WebSocket needs the bearer token and answers 401 otherwise.
Prints the WebSocket URL and serves until interrupted.`,
		func(cmd *cobra.Command, _ []string) (int, error) {
			return a.serveUntilDone(cmd, &f, relay.ReferenceAgent())
		})
	cmd.Args = cobra.NoArgs
	f.register(cmd.Flags())
	return cmd
}

func (a *app) serveCommandCommand() *cobra.Command {
	var f serveFlags
	cmd := a.command("serve-command [flags] -- CMD ARGS...", "Serve a stdio command over WebSocket, frames unchanged", `
Serves a command that speaks ACP on its stdio over WebSocket, started afresh
for each connection, relaying JSON-RPC frames unchanged, byte for byte: each
text message goes to its stdin followed by a newline, each line it writes
goes out as one text message. Endpoints as acpconform serve.`,
		func(cmd *cobra.Command, argv []string) (int, error) {
			if err := checkCommand(argv); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			return a.serveUntilDone(cmd, &f, relay.Command(argv, log))
		})
	f.register(cmd.Flags())
	return cmd
}

func (a *app) mirrorCommand() *cobra.Command {
	var opts relay.MirrorOptions
	var tokenEnv string
	maxFrame := byteSize{n: wire.DefaultMaxFrame, max: maxSize}
	cmd := a.command("mirror [flags] URL", "Serve a WebSocket agent on stdio; --unstable-protocol opts into elicitation", `
Connects to the ACP agent served at the WebSocket URL and serves it to a
client on stdin/stdout, relaying frames unchanged. Without
--unstable-protocol its client-facing side has not opted into the unstable
elicitation route, and answers the agent's elicitation/create with -32601
itself, as ACP Kit's mirror does. --rebuild-capabilities drops the client's
elicitation capability on the way to the agent, as ACP Kit's mirror does by
default: it exists to show that defect (acpconform relay reports it).

Exit codes: 0 when the client or the agent ends the session; 2 usage error;
3 the agent could not be reached.`,
		func(cmd *cobra.Command, args []string) (int, error) {
			url := args[0]
			if err := webSocketURL("the agent's URL", url); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			opts.MaxFrame = maxFrame.n
			if tokenEnv != "" {
				token := os.Getenv(tokenEnv)
				if token == "" {
					return exitUsage, usagef(cmd, "--token-env: $%s is empty or unset", tokenEnv)
				}
				opts.Header = http.Header{"Authorization": {"Bearer " + token}}
			}
			local := wire.NewStream(a.stdin, a.protocolOut, wire.Options{MaxFrame: opts.MaxFrame})
			err := relay.Mirror(a.ctx, url, local, opts)
			if err != nil && a.ctx.Err() == nil && !errors.Is(err, wire.ErrClosed) {
				fmt.Fprintf(a.stderr, "acpconform mirror: %v\n", err)
				return exitNoConnection, nil
			}
			return exitOK, nil
		})
	cmd.Args = exactlyOne("the agent's WebSocket URL")
	cmd.Flags().BoolVar(&opts.UnstableProtocol, "unstable-protocol", false, "opt the client-facing side into unstable routes: relay elicitation/create to the client")
	cmd.Flags().BoolVar(&opts.RebuildCapabilities, "rebuild-capabilities", false, "drop the client's elicitation capability on the way to the agent (a defect, on purpose)")
	cmd.Flags().StringVar(&tokenEnv, "token-env", "", "send 'Authorization: Bearer' and the value of this environment `VARIABLE`")
	cmd.Flags().Var(&maxFrame, "max-frame", "refuse frames above this `SIZE` (bytes, or with KiB, MiB, GiB)")
	return cmd
}

// exactlyOne takes one positional argument, named what in the error.
func exactlyOne(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return usagef(cmd, "name %s", what)
		case len(args) > 1:
			return usagef(cmd, "unexpected argument %q: give only %s", args[1], what)
		}
		return nil
	}
}

func (a *app) relayCommand() *cobra.Command {
	var f checkFlags
	cmd := a.command("relay [flags] -- CMD ... {agent}|{url} ...", "Check a relay: one that spawns {agent}, or dials the agent's WebSocket {url}", `
Checks a relay under test (docs/probe.md §3): a command that serves ACP to
its client on its stdio and reaches its agent one of two ways, which its
command line names with exactly one placeholder:

  {agent}  it spawns its agent on stdio, as a stdio proxy or a proxy chain
           does (-- node proxy.mjs -- {agent}): acpconform replaces {agent},
           alone or inside an argument, with the shell-quoted command line
           of acpconform bridge to a private unix socket of that check
  {url}    it dials the agent's WebSocket, as a mirror does (-- CMD {url})

For every check acpconform starts the relay afresh, plays the client on its
stdio and the agent behind it, and checks RTE-5: the client's elicitation
capability reaches the agent, and elicitation/create reaches the client with
its answer coming back unchanged.

Exit codes: acpconform help exit-codes.`,
		func(cmd *cobra.Command, argv []string) (int, error) {
			byAgent, byURL := holds(argv, suite.AgentPlaceholder), holds(argv, suite.URLPlaceholder)
			if err := checkCommand(argv); err != nil || byAgent == byURL {
				return exitUsage, usagef(cmd, "name the relay with exactly one of {agent}, where it takes the command of the agent it spawns (-- CMD ... {agent}), or {url}, where it takes the agent's WebSocket URL (-- CMD ... {url} ...)")
			}
			return a.checkSubject(cmd, suite.Relay(argv, f.wire()), argv, "", scenarios.Options{}, &f, true)
		})
	f.register(cmd.Flags())
	return cmd
}

// holds reports an argument holding placeholder.
func holds(argv []string, placeholder string) bool {
	for _, a := range argv {
		if strings.Contains(a, placeholder) {
			return true
		}
	}
	return false
}
