package main

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
)

// startServing runs `acpconform args...` in the background and returns the
// URL it prints; the process ends with the test.
func startServing(t *testing.T, env []string, args ...string) string {
	t.Helper()
	bin, _ := binaries(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(cmd.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("acpconform %s printed no URL: %v", strings.Join(args, " "), err)
	}
	go io.Copy(io.Discard, stdout)
	return strings.TrimSpace(url)
}

func TestRelayChecksTheMirror(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	// Opted in, the mirror passes every check of the relay catalogue: a
	// row of the interop matrix, and TestShardsOfEachCatalogue's whole run.
	// Un-opted, the mirror answers elicitation/create itself: the REL
	// checks wait for what never comes, a second each here.
	r := acpconform(t, nil, "relay", "--response-timeout", "1s", "--", bin, "mirror", "{url}")
	expectCode(t, r, 1)
	// The terminal wraps a reason: its words, not its lines, are compared.
	if said := words(r.stdout); !strings.Contains(said, "has not opted into the unstable elicitation route") || !strings.Contains(said, "--unstable-protocol") {
		t.Errorf("the un-opted mirror's failure does not say why:\n%s", r.stdout)
	}

	r = acpconform(t, nil, "relay", "--", bin, "mirror", "{url}", "--unstable-protocol", "--rebuild-capabilities")
	expectCode(t, r, 1)
	if said := words(r.stdout); !strings.Contains(said, "relay defect") || !strings.Contains(said, "without the client's elicitation.form") {
		t.Errorf("the capability-dropping mirror's failure does not say why:\n%s", r.stdout)
	}

	r = acpconform(t, nil, "relay", "--", bin, "mirror", "ws://127.0.0.1:1/acp/ws")
	expectCode(t, r, 2) // no {url}: the relay cannot be pointed at the harness
}

func TestServeWithTokenAndCheckOverURL(t *testing.T) {
	t.Parallel()
	url := startServing(t, []string{"ACPCONFORM_TEST_TOKEN=s3cret"}, "serve", "--token-env", "ACPCONFORM_TEST_TOKEN")
	r := acpconform(t, []string{"ACPCONFORM_TEST_TOKEN=s3cret"}, "agent", "--url", url, "--token-env", "ACPCONFORM_TEST_TOKEN")
	expectCode(t, r, 0)
	r = acpconform(t, []string{"ACPCONFORM_TEST_TOKEN=wrong"}, "agent", "--url", url, "--token-env", "ACPCONFORM_TEST_TOKEN")
	expectCode(t, r, 3)
	if !strings.Contains(r.stderr, "401") {
		t.Errorf("a refused token does not say 401:\n%s", r.stderr)
	}
}

func TestServeCommandAndMirror(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	url := startServing(t, nil, "serve-command", "--", bin, "reference-agent")
	// serve-command starts a process per connection: the checks of
	// connections and their ends. The whole catalogue over a served
	// WebSocket is TestServeWithTokenAndCheckOverURL's and the interop
	// matrix's.
	r := acpconform(t, nil, "agent", "--check", "SES-*,CAP-4/*,RTE-7/*,TOK-1/*", "--url", url)
	expectCode(t, r, 0)
	if r.report.Totals.Passed < 10 {
		t.Errorf("over serve-command, %d checks passed, want 10 or more", r.report.Totals.Passed)
	}
	// The reference through the mirror, as a stdio agent: the full catalogue.
	r = acpconform(t, nil, "agent", "--", bin, "mirror", url, "--unstable-protocol")
	expectCode(t, r, 0)

	ctx := testbound.Context(t)
	out, _ := exec.CommandContext(ctx, bin, "mirror", "ws://127.0.0.1:1/acp/ws").CombinedOutput()
	code := exitCodeOf(ctx, bin, "mirror", "ws://127.0.0.1:1/acp/ws")
	if timeout := testbound.TimedOut(ctx); timeout != nil {
		t.Fatalf("mirror to a refused URL: %v\n%s", timeout, out)
	}
	if code != 3 || !strings.Contains(string(out), "dial") {
		t.Errorf("mirror to a refused URL: exit %d\n%s", code, out)
	}
}

func exitCodeOf(ctx context.Context, bin string, args ...string) int {
	cmd := exec.CommandContext(ctx, bin, args...)
	_ = cmd.Run()
	return cmd.ProcessState.ExitCode()
}
