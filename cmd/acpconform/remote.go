package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"

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

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "the address to serve on")
	fs.StringVar(&f.mount, "mount", relay.DefaultMount, "serve metadata here and the WebSocket at <mount>/ws")
	fs.StringVar(&f.tokenEnv, "token-env", "", "require 'Authorization: Bearer' and the value of this environment variable")
	f.maxFrame = byteSize{n: wire.DefaultMaxFrame, max: maxSize}
	fs.Var(&f.maxFrame, "max-frame", "refuse frames above this size (bytes, or with KiB, MiB, GiB)")
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
// ctx ends (SIGINT, SIGTERM).
func serveUntilDone(ctx context.Context, name string, f *serveFlags, agent relay.Agent, stdout, stderr io.Writer) int {
	opts, err := f.options(name)
	if err != nil {
		fmt.Fprintf(stderr, "acpconform %s: %v\n", name, err)
		return exitUsage
	}
	srv, err := relay.NewServer(f.listen, agent, opts)
	if err != nil {
		fmt.Fprintf(stderr, "acpconform %s: %v\n", name, err)
		return exitUsage
	}
	fmt.Fprintln(stdout, srv.URL)
	<-ctx.Done()
	srv.Close()
	return exitOK
}

const serveUsage = `usage: acpconform serve [flags]

Serves the reference agent (PROBE.md §1) over WebSocket: the WebSocket at
<mount>/ws, metadata JSON at <mount>, health at /healthz; with --token-env,
the WebSocket needs the bearer token and answers 401 otherwise. Prints the
WebSocket URL and serves until interrupted.

flags:
`

func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", serveUsage, stderr)
	var f serveFlags
	f.register(fs)
	if !parse(fs, args, stderr) {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "acpconform serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	return serveUntilDone(ctx, "serve", &f, relay.ReferenceAgent(), stdout, stderr)
}

const serveCommandUsage = `usage: acpconform serve-command [flags] -- CMD ARGS...

Serves a command that speaks ACP on its stdio over WebSocket, started afresh
for each connection, relaying JSON-RPC frames unchanged, byte for byte: each
text message goes to its stdin followed by a newline, each line it writes
goes out as one text message. Endpoints as acpconform serve.

flags:
`

func runServeCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve-command", serveCommandUsage, stderr)
	var f serveFlags
	f.register(fs)
	if !parse(fs, args, stderr) {
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "acpconform serve-command: name the command: -- CMD ARGS...")
		return exitUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return serveUntilDone(ctx, "serve-command", &f, relay.Command(fs.Args(), log), stdout, stderr)
}

const mirrorUsage = `usage: acpconform mirror [flags] URL

Connects to the ACP agent served at the WebSocket URL and serves it to a
client on stdin/stdout, relaying frames unchanged. Without
--unstable-protocol its client-facing side has not opted into the unstable
elicitation route, and answers the agent's elicitation/create with -32601
itself, as ACP Kit's mirror does. --rebuild-capabilities drops the client's
elicitation capability on the way to the agent, as ACP Kit's mirror does by
default: it exists to show that defect (acpconform relay reports it).

Exit codes: 0 when the client or the agent ends the session; 2 usage error;
3 the agent could not be reached.

flags:
`

func runMirror(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("mirror", mirrorUsage, stderr)
	var opts relay.MirrorOptions
	fs.BoolVar(&opts.UnstableProtocol, "unstable-protocol", false, "opt the client-facing side into unstable routes: relay elicitation/create to the client")
	fs.BoolVar(&opts.RebuildCapabilities, "rebuild-capabilities", false, "drop the client's elicitation capability on the way to the agent (a defect, on purpose)")
	tokenEnv := fs.String("token-env", "", "send 'Authorization: Bearer' and the value of this environment variable")
	maxFrame := byteSize{n: wire.DefaultMaxFrame, max: maxSize}
	fs.Var(&maxFrame, "max-frame", "refuse frames above this size (bytes, or with KiB, MiB, GiB)")
	// The URL may come before, after or between the flags.
	if !parse(fs, args, stderr) {
		return exitUsage
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fmt.Fprintln(stderr, "acpconform mirror: name the agent's WebSocket URL (see acpconform mirror -h)")
		return exitUsage
	}
	url := rest[0]
	if !parse(fs, rest[1:], stderr) {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "acpconform mirror: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if err := webSocketURL("the agent's URL", url); err != nil {
		fmt.Fprintf(stderr, "acpconform mirror: %v\n", err)
		return exitUsage
	}
	opts.MaxFrame = maxFrame.n
	if *tokenEnv != "" {
		token := os.Getenv(*tokenEnv)
		if token == "" {
			fmt.Fprintf(stderr, "acpconform mirror: --token-env: $%s is empty or unset\n", *tokenEnv)
			return exitUsage
		}
		opts.Header = http.Header{"Authorization": {"Bearer " + token}}
	}
	local := wire.NewStream(stdin, stdout, wire.Options{MaxFrame: opts.MaxFrame})
	err := relay.Mirror(ctx, url, local, opts)
	if err != nil && ctx.Err() == nil && !errors.Is(err, wire.ErrClosed) {
		fmt.Fprintf(stderr, "acpconform mirror: %v\n", err)
		return exitNoConnection
	}
	return exitOK
}

const relayUsage = `usage: acpconform relay [flags] -- CMD ... {url} ...

Checks a relay under test (PROBE.md §3): a command that connects to the
agent served at {url} and serves ACP on its stdio, as a mirror does.
acpconform serves a mock agent at {url} for every check, plays the client on
the relay's stdio, and checks RTE-5: the client's elicitation capability
reaches the agent, and elicitation/create reaches the client with its answer
coming back unchanged.

Exit codes as acpconform agent.

flags:
`

func runRelay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("relay", relayUsage, stderr)
	var f checkFlags
	f.register(fs)
	if !parse(fs, args, stderr) {
		return exitUsage
	}
	argv := fs.Args()
	if err := checkCommand(argv); err != nil || !containsPlaceholder(argv) {
		fmt.Fprintln(stderr, "acpconform relay: name the relay with {url} where it takes the agent's URL: -- CMD ... {url} ...")
		return exitUsage
	}
	return checkSubject(ctx, "relay", suite.Relay(argv, f.wire()), "", scenarios.Options{}, &f, true, stdout, stderr)
}

// containsPlaceholder reports an argument holding {url}.
func containsPlaceholder(argv []string) bool {
	for _, a := range argv {
		if strings.Contains(a, suite.URLPlaceholder) {
			return true
		}
	}
	return false
}
