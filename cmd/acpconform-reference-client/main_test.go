//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/internal/testcost/budget"
	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/probe"
)

var bin string // the client, built once

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acpconform-reference-client")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "acpconform-reference-client")
	out, err := exec.Command("go", "build", "-trimpath", "-o", bin, ".").CombinedOutput()
	code := 1
	if err == nil {
		code = budget.Main(m)
	} else {
		os.Stderr.Write(out)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

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
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"-h"}, 0, "usage: acpconform reference-client [flags], or acpconform-reference-client"},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"--broken", "nope"}, 2, `--broken "nope" is none of`},
		{[]string{"--timeout", "1ms"}, 1, "reference-client: initialize"}, // no agent answers
	} {
		cmd := exec.CommandContext(bounded(t), bin, tc.args...)
		cmd.Stdin = blocking(t)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if code := 0; err == nil || errors.As(err, &exit) {
			if exit != nil {
				code = exit.ExitCode()
			}
			if code != tc.code {
				t.Errorf("%q: exit %d, want %d\n%s", tc.args, code, tc.code, out)
			}
		} else {
			t.Errorf("%q: %v", tc.args, err)
		}
		if !strings.Contains(string(out), tc.says) {
			t.Errorf("%q: output %q, want it to say %q", tc.args, out, tc.says)
		}
	}
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
