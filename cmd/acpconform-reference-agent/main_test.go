//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"syscall"
	"testing"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/internal/testbin"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
)

var bin string // the agent, built once

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, &bin)) }

// bounded ends a margin before go test's -timeout runs out.
func bounded(t *testing.T) context.Context { return testbound.Context(t) }

// TestServesAProbeAndStopsOnSIGTERM: the agent answers a probe as the
// reference does, and a SIGTERM while it serves ends it with exit 0, as
// it does under `acpconform reference-agent`.
func TestServesAProbeAndStopsOnSIGTERM(t *testing.T) {
	ctx := bounded(t)
	p, err := proc.Start([]string{bin})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	mc := client.New(client.Config{Capabilities: client.FormElicitation})
	mc.Append(script.Elicitation{Answer: script.AcceptDefault()})
	mc.Connect(wire.NewStream(p.Stdout, p.Stdin, wire.Options{}))
	defer mc.Close()
	if err := mc.Initialize(ctx); err != nil { // it answers: its signal handler is in place
		t.Fatalf("initialize: %v\n%s", testbound.Err(ctx, err), p.Stderr.String())
	}
	if _, err := mc.NewSession(ctx); err != nil {
		t.Fatal(testbound.Err(ctx, err))
	}
	out, stop, err := mc.Probe(ctx, probe.Request{Acpconform: 1, Op: probe.OpAskChoice, Question: "Pick",
		Choices: []probe.Choice{{Value: json.RawMessage(`"a"`), Label: "A"}, {Value: json.RawMessage(`2`), Label: "B", Default: true}}})
	if err != nil || stop != "end_turn" {
		t.Fatalf("probe: %v, %s\n%s", testbound.Err(ctx, err), stop, p.Stderr.String())
	}
	if out.Outcome != "accepted" || string(out.Value) != "2" {
		t.Errorf("outcome %+v, want accepted with the default's value 2", out)
	}
	if v := mc.Violations(); len(v) > 0 {
		t.Errorf("violations: %q", v)
	}
	if err := syscall.Kill(p.Pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(ctx); err != nil {
		t.Fatal(testbound.Err(ctx, err))
	}
	if err := p.Err(); err != nil {
		t.Errorf("after SIGTERM: %v, want exit 0\n%s", err, p.Stderr.String())
	}
}

func TestArguments(t *testing.T) {
	testbin.Arguments(t, bounded(t), bin, nil, []testbin.Case{
		{Args: nil, Code: 0, Says: ""}, // empty stdin: serves nothing and exits
		{Args: []string{"-h"}, Code: 0, Says: "usage: acpconform reference-agent, or acpconform-reference-agent"},
		{Args: []string{"extra"}, Code: 2, Says: `unexpected argument "extra"`},
		{Args: []string{"--bogus"}, Code: 2, Says: "flag provided but not defined: -bogus"},
	})
}
