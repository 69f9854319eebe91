//go:build unix

package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/acpconform/acpconform/internal/proc"
)

// withInterrupts returns a context that SIGINT, SIGTERM and SIGHUP end,
// with the signal as its cause. A second signal kills every subject
// process at once, without the polite stop. SIGPIPE is caught too, so that
// a closed stdout (acpconform ... | head) fails writes to it instead of
// killing acpconform before its reports and baseline are written.
func withInterrupts(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	done := make(chan struct{})
	var forwarded atomic.Bool
	go func() {
		count := 0
		for {
			select {
			case s := <-sigs:
				sig := s.(syscall.Signal)
				if sig == syscall.SIGINT && forwarded.CompareAndSwap(true, false) {
					continue // our own, below
				}
				count++
				if count > 1 {
					proc.KillAll()
					continue
				}
				cancel(interruption{sig})
				if sig == syscall.SIGHUP {
					// The catalogue's runner stops the check at hand on SIGINT
					// and SIGTERM only: tell it in its terms.
					forwarded.Store(true)
					_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
				}
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
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}
