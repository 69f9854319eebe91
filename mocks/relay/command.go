package relay

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/mocks/wire"
)

// Stdio is a started command as a relay sees it: its stdin, its stdout,
// and a way to stop it.
type Stdio interface {
	Stdin() io.WriteCloser
	Stdout() io.Reader
	Stop() error
}

// Command serves a command, started afresh for each connection, relaying
// JSON-RPC frames unchanged, byte for byte (RTE-6): a WebSocket message
// goes to the command's stdin followed by a newline, and each line the
// command writes goes out as one text message without it.
func Command(argv []string, log *slog.Logger) Agent {
	return RelayTo(func() (Stdio, error) {
		p, err := proc.Start(argv)
		if err != nil {
			return nil, err
		}
		return process{p}, nil
	}, log)
}

type process struct{ p *proc.Process }

func (p process) Stdin() io.WriteCloser { return p.p.Stdin }
func (p process) Stdout() io.Reader     { return p.p.Stdout }
func (p process) Stop() error           { return p.p.Stop() }

// RelayTo relays each connection to what start starts, frames unchanged.
func RelayTo(start func() (Stdio, error), log *slog.Logger) Agent {
	return TamperedRelayTo(start, nil, log)
}

// TamperedRelayTo is RelayTo made wrong on purpose by t (package mutants);
// a nil t relays faithfully.
func TamperedRelayTo(start func() (Stdio, error), t *Tamper, log *slog.Logger) Agent {
	return func(ctx context.Context, conn wire.Conn) {
		cmd, err := start()
		if err != nil {
			log.Error("relay: the command did not start", "err", err)
			return
		}
		defer cmd.Stop()
		done := make(chan struct{}, 2)
		go func() { // command -> client
			defer func() { done <- struct{}{} }()
			lines := bufio.NewReaderSize(cmd.Stdout(), 64<<10)
			for {
				line, err := lines.ReadBytes('\n')
				if n := len(line); n > 0 && line[n-1] == '\n' {
					line = line[:n-1]
				}
				if len(line) > 0 {
					for _, f := range t.frames(ToClient, line) {
						if werr := conn.WriteRaw(ctx, f); werr != nil {
							return
						}
					}
				}
				if err != nil {
					return
				}
			}
		}()
		go func() { // client -> command
			defer func() { done <- struct{}{} }()
			defer cmd.Stdin().Close()
			for {
				frame, err := conn.ReadFrame(ctx)
				if err != nil {
					return
				}
				for _, f := range t.frames(ToAgent, frame) {
					if _, err := cmd.Stdin().Write(append(f, '\n')); err != nil {
						log.Warn("relay: the command stopped reading", "err", fmt.Sprint(err))
						return
					}
				}
			}
		}()
		select { // either side ending ends the session
		case <-done:
			if t.keepOpen() {
				<-ctx.Done()
			}
		case <-ctx.Done():
		}
	}
}
