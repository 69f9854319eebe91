package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
)

const mockLong = `
Plays a scripted mock peer for manual poking and for implementers in any
language (docs/scripts.md describes the scripts).

  mock client   plays the editor: drives an agent, answers its elicitations
  mock agent    plays the agent: serves a client, sends it elicitations

The connection is this process's stdin and stdout unless --connect dials a
WebSocket URL or --listen serves one (the URL is printed on stdout) and
plays the script with the first peer that connects.

Exit codes: 0 all happened as scripted; 1 violations (listed on stderr with
the transcript); 2 an invalid script or flag; 3 no connection.`

func (a *app) mockCommand() *cobra.Command {
	var scriptFile, connect, listen, path string
	var accept time.Duration
	var verbose bool
	maxFrame := byteSize{n: wire.DefaultMaxFrame, max: maxSize}
	cmd := a.command("mock client|agent --script FILE [flags]", "Play a scripted mock client or agent (docs/scripts.md)", mockLong,
		func(cmd *cobra.Command, args []string) (int, error) {
			role := args[0]
			switch {
			case role != string(script.Client) && role != string(script.Agent):
				return exitUsage, usagef(cmd, "unknown peer %q (want client or agent)", role)
			case scriptFile == "":
				return exitUsage, usagef(cmd, "--script is required")
			case connect != "" && listen != "":
				return exitUsage, usagef(cmd, "--connect and --listen exclude each other")
			}
			if connect != "" {
				if err := webSocketURL("--connect", connect); err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
			}
			s, err := script.Load(scriptFile)
			if err != nil {
				fmt.Fprintf(a.stderr, "acpconform mock: %v\n", err)
				return exitUsage, nil
			}
			if string(s.Peer) != role {
				return exitUsage, usagef(cmd, "%s is a %s script, not a %s script", scriptFile, s.Peer, role)
			}
			return a.playMock(s, connect, listen, path, accept, verbose, wire.Options{MaxFrame: maxFrame.n, Transcript: wire.NewTranscript()}), nil
		})
	cmd.Args = exactlyOne("the peer to play: client or agent")
	cmd.Flags().StringVar(&scriptFile, "script", "", "the script to play (YAML or JSON `FILE`)")
	cmd.Flags().StringVar(&connect, "connect", "", "dial this WebSocket `URL` instead of using stdio")
	cmd.Flags().StringVar(&listen, "listen", "", "serve a WebSocket on this `ADDRESS` (such as 127.0.0.1:0) instead of using stdio")
	cmd.Flags().StringVar(&path, "path", wire.DefaultPath, "the WebSocket `PATH` served with --listen")
	cmd.Flags().Var(&maxFrame, "max-frame", "refuse incoming frames above this `SIZE` (bytes, or with KiB, MiB, GiB)")
	cmd.Flags().DurationVar(&accept, "accept-timeout", time.Minute, "with --listen, how long to wait for a peer")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print the transcript even when all went well")
	return cmd
}

// playMock plays s over stdio, a dialled WebSocket or a served one.
func (a *app) playMock(s *script.Script, connect, listen, path string, accept time.Duration, verbose bool, opts wire.Options) int {
	ctx, stdout, stderr := a.ctx, a.protocolOut, a.stderr
	play := func(ctx context.Context, conn wire.Conn) error {
		if s.Peer == script.Client {
			return client.Run(ctx, s, conn)
		}
		return agent.Run(ctx, s, conn)
	}
	var playErr error
	switch {
	case connect != "":
		dial, cancel := context.WithTimeout(ctx, s.Wait())
		conn, err := wire.Dial(dial, connect, wire.DialOptions{Options: opts})
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "acpconform mock: %v\n", err)
			return exitNoConnection
		}
		playErr = play(ctx, conn)
	case listen != "":
		var ok bool
		if playErr, ok = playListening(ctx, listen, path, accept, opts, play, stdout, stderr); !ok {
			return exitNoConnection
		}
	default:
		playErr = play(ctx, wire.NewStream(a.stdin, stdout, opts))
	}
	if playErr != nil || verbose {
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
