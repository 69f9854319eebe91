package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
)

const mockUsage = `usage: acpconform mock client|agent --script FILE [--connect URL | --listen ADDR] [flags]

Plays a scripted mock peer for manual poking and for implementers in any
language (docs/scripts.md describes the scripts).

  mock client   plays the editor: drives an agent, answers its elicitations
  mock agent    plays the agent: serves a client, sends it elicitations

The connection is this process's stdin and stdout unless --connect dials a
WebSocket URL or --listen serves one (the URL is printed on stdout) and
plays the script with the first peer that connects.

Exit codes: 0 all happened as scripted; 1 violations (listed on stderr with
the transcript); 2 an invalid script or flag; 3 no connection.

flags:
`

// runMock plays a mock peer script: `acpconform mock client|agent ...`.
func runMock(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("mock", mockUsage, stderr)
	scriptFile := fs.String("script", "", "the script to play (YAML or JSON)")
	connect := fs.String("connect", "", "dial this WebSocket URL instead of using stdio")
	listen := fs.String("listen", "", "serve a WebSocket on this address (such as 127.0.0.1:0) instead of using stdio")
	path := fs.String("path", wire.DefaultPath, "the WebSocket path served with --listen")
	maxFrame := &byteSize{n: wire.DefaultMaxFrame, max: maxSize}
	fs.Var(maxFrame, "max-frame", "refuse incoming frames above this size (bytes, or with KiB, MiB, GiB)")
	accept := fs.Duration("accept-timeout", time.Minute, "with --listen, how long to wait for a peer")
	verbose := fs.Bool("v", false, "print the transcript even when all went well")
	if len(args) == 0 {
		fs.Usage()
		return exitUsage
	}
	role := args[0]
	if role != string(script.Client) && role != string(script.Agent) {
		fmt.Fprintf(stderr, "acpconform mock: unknown peer %q (want client or agent)\n", role)
		return exitUsage
	}
	if !parse(fs, args[1:], stderr) {
		return exitUsage
	}
	switch {
	case *scriptFile == "":
		fmt.Fprintln(stderr, "acpconform mock: --script is required")
		return exitUsage
	case *connect != "" && *listen != "":
		fmt.Fprintln(stderr, "acpconform mock: --connect and --listen exclude each other")
		return exitUsage
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "acpconform mock: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	s, err := script.Load(*scriptFile)
	if err != nil {
		fmt.Fprintf(stderr, "acpconform mock: %v\n", err)
		return exitUsage
	}
	if string(s.Peer) != role {
		fmt.Fprintf(stderr, "acpconform mock: %s is a %s script, not a %s script\n", *scriptFile, s.Peer, role)
		return exitUsage
	}
	play := func(ctx context.Context, conn wire.Conn) error {
		if s.Peer == script.Client {
			return client.Run(ctx, s, conn)
		}
		return agent.Run(ctx, s, conn)
	}
	opts := wire.Options{MaxFrame: maxFrame.n, Transcript: wire.NewTranscript()}

	var playErr error
	switch {
	case *connect != "":
		dial, cancel := context.WithTimeout(ctx, s.Wait())
		conn, err := wire.Dial(dial, *connect, wire.DialOptions{Options: opts})
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "acpconform mock: %v\n", err)
			return exitNoConnection
		}
		playErr = play(ctx, conn)
	case *listen != "":
		var ok bool
		if playErr, ok = playListening(ctx, *listen, *path, *accept, opts, play, stdout, stderr); !ok {
			return exitNoConnection
		}
	default:
		playErr = play(ctx, wire.NewStream(stdin, stdout, opts))
	}
	if playErr != nil || *verbose {
		fmt.Fprintf(stderr, "transcript of %s:\n%s", s.Name, opts.Transcript)
	}
	if playErr != nil {
		fmt.Fprintf(stderr, "acpconform mock: %s: FAILED\n%v\n", s.Name, indent(playErr))
		return exitFailed
	}
	fmt.Fprintf(stderr, "acpconform mock: %s: ok\n", s.Name)
	return exitOK
}

// playListening serves a WebSocket, prints its URL and plays with the first
// peer; false means no peer came.
func playListening(ctx context.Context, addr, path string, accept time.Duration, opts wire.Options, play func(context.Context, wire.Conn) error, stdout, stderr io.Writer) (error, bool) {
	results := make(chan error, 1)
	first := make(chan struct{}, 1)
	srv, err := wire.Listen(addr, path, opts, func(ctx context.Context, conn wire.Conn) {
		select {
		case first <- struct{}{}:
			results <- play(ctx, conn)
		default: // one peer at a time: a second is refused by closing
		}
	})
	if err != nil {
		fmt.Fprintf(stderr, "acpconform mock: %v\n", err)
		return nil, false
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL)
	wait := time.NewTimer(accept)
	defer wait.Stop()
	select {
	case <-first:
	case <-wait.C:
		fmt.Fprintf(stderr, "acpconform mock: no peer connected to %s within %s\n", srv.URL, accept)
		return nil, false
	case <-ctx.Done():
		return ctx.Err(), true
	}
	return <-results, true
}

// indent puts each line of err two spaces in.
func indent(err error) string {
	return "  " + strings.ReplaceAll(err.Error(), "\n", "\n  ") + "\n"
}
