package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/acpconform/acpconform/internal/proc"
)

// withInterrupts returns a context that os.Interrupt (Ctrl-C, Ctrl-Break)
// ends, with the signal as its cause. A second one kills every subject
// process at once, as on Unix; Windows has no SIGHUP to forward and no
// SIGPIPE to catch.
func withInterrupts(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt)
	done := make(chan struct{})
	go func() {
		count := 0
		for {
			select {
			case s := <-sigs:
				count++
				if count > 1 {
					proc.KillAll()
					continue
				}
				cancel(interruption{s.(syscall.Signal)})
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// signalName is a signal's conventional name, such as SIGINT.
func signalName(sig syscall.Signal) string {
	if sig == syscall.SIGINT {
		return "SIGINT"
	}
	return sig.String()
}
