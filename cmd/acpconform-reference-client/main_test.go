//go:build unix

package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"testing"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/internal/testbin"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/probe"
)

var bin string // the client, built once

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, &bin)) }

// bounded ends a margin before go test's -timeout runs out.
func bounded(t *testing.T) context.Context { return testbound.Context(t) }

// TestPlaysASessionWithTheReferenceAgent: against the reference agent on
// its stdio, the client sends its prompt (a probe request), cancels the
// elicitation it gets without a scripted user, as a person closing the
// dialog, and exits 0 when the turn ends.
func TestPlaysASessionWithTheReferenceAgent(t *testing.T) {
	ctx := bounded(t)
	req, _ := json.Marshal(probe.Request{Acpconform: 1, Op: probe.OpAskChoice, Question: "Pick",
		Choices: []probe.Choice{{Value: json.RawMessage(`"a"`), Label: "A"}, {Value: json.RawMessage(`2`), Label: "B"}}})
	p, err := proc.Start([]string{bin, "--prompt", string(req)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	agent := probeagent.Serve(p.Stdin, p.Stdout, slog.New(slog.DiscardHandler))
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("the client did not finish: %v\n%s", testbound.Err(ctx, err), p.Stderr.String())
	}
	<-agent.Done()
	if err := p.Err(); err != nil {
		t.Errorf("the client exited: %v, want 0\n%s", err, p.Stderr.String())
	}
}

func TestArguments(t *testing.T) {
	testbin.Arguments(t, bounded(t), bin, blocking(t), []testbin.Case{
		{Args: []string{"-h"}, Code: 0, Says: "usage: acpconform reference-client [flags], or acpconform-reference-client"},
		{Args: []string{"extra"}, Code: 2, Says: `unexpected argument "extra"`},
		{Args: []string{"--bogus"}, Code: 2, Says: "flag provided but not defined: -bogus"},
		{Args: []string{"--broken", "nope"}, Code: 2, Says: `--broken "nope" is none of`},
		{Args: []string{"--timeout", "1ms"}, Code: 1, Says: "reference-client: initialize"}, // no agent answers
	})
}

// blocking is a stdin that never ends while the test runs.
func blocking(t *testing.T) *os.File {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r
}
