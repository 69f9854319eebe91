package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/suite"
)

func TestRunDispatch(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		inStderr string
	}{
		{nil, exitUsage, "acpconform: name a command"},
		{[]string{"frobnicate"}, exitUsage, `acpconform: unknown command "frobnicate" for "acpconform"`},
		{[]string{"reference-agent", "--bogus"}, exitUsage, "acpconform reference-agent: unknown flag: --bogus (see acpconform reference-agent --help)"},
		{[]string{"reference-agent", "extra"}, exitUsage, `unknown command "extra" for "acpconform reference-agent"`},
		{[]string{"agent", "--max-frame", "-5", "--", "x"}, exitUsage, `invalid argument "-5" for "--max-frame" flag: -5 is out of range`},
		{[]string{"mirror", "--unstable-protocol"}, exitUsage, "acpconform mirror: name the agent's WebSocket URL"},
		{[]string{"mirror", "ws://x/acp/ws", "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"reference-agent"}, exitOK, ""}, // empty stdin: serves nothing and exits
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.inStderr) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.inStderr)
		}
		if code == exitUsage && strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 && tc.args != nil {
			t.Errorf("run(%q): a usage error is one line:\n%s", tc.args, stderr.String())
		}
	}
}

// TestEveryCommandHasHelp asks for every command's help the ways people do:
// on stdout, exit 0.
func TestEveryCommandHasHelp(t *testing.T) {
	root := (&app{}).root()
	names := []string{""}
	topic := map[string]bool{}
	for _, c := range root.Commands() {
		names = append(names, c.Name())
		topic[c.Name()] = !c.Runnable() && !c.HasSubCommands() && c.Name() != "help"
	}
	for _, name := range names {
		want := "Usage:"
		if topic[name] {
			want = "exits with one of" // a help topic: its text is the help
		}
		var asked [][]string
		if name == "" {
			asked = [][]string{{"--help"}, {"-h"}, {"-help"}, {"help"}}
		} else {
			asked = [][]string{{name, "--help"}, {name, "-h"}, {name, "-help"}, {"help", name}}
		}
		for _, args := range asked {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			if code != exitOK || !strings.Contains(stdout.String(), want) || stderr.Len() > 0 {
				t.Errorf("acpconform %q: exit %d, stdout %.80q, stderr %q; want help on stdout and exit 0", args, code, stdout.String(), stderr.String())
			}
		}
	}
}

func TestVersionAndExitCodes(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, nil, &stdout, &stderr); code != exitOK || !strings.HasPrefix(stdout.String(), "acpconform ") || !strings.Contains(stdout.String(), "contract revision") || !strings.Contains(stdout.String(), "ACP schema "+suite.Schema()) {
		t.Errorf("--version: exit %d, %q", code, stdout.String())
	}
	flag := stdout.String()
	stdout.Reset()
	if code := run(context.Background(), []string{"version"}, nil, &stdout, &stderr); code != exitOK || stdout.String() != flag {
		t.Errorf("version: exit %d, %q; want what --version says, %q", code, stdout.String(), flag)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"help", "exit-codes"}, nil, &stdout, &stderr); code != exitOK {
		t.Errorf("help exit-codes: exit %d", code)
	}
	for code := 0; code <= 7; code++ { // 7: reports.ExitStaleBaseline
		if !strings.Contains(stdout.String(), fmt.Sprintf("\n  %d  ", code)) {
			t.Errorf("help exit-codes lacks exit code %d:\n%s", code, stdout.String())
		}
	}
}

// TestFlagsGoAnywhere parses a mirror's flag before and after its URL, and
// long flags written with one dash as Go's flag package took them.
func TestFlagsGoAnywhere(t *testing.T) {
	for _, args := range [][]string{
		{"mirror", "--unstable-protocol", "ws://127.0.0.1:1/acp/ws"},
		{"mirror", "ws://127.0.0.1:1/acp/ws", "--unstable-protocol"},
		{"mirror", "-unstable-protocol", "ws://127.0.0.1:1/acp/ws"},
	} {
		var stdout, stderr bytes.Buffer
		// Nothing listens there: the flags parsed, the dial failed.
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != exitNoConnection {
			t.Errorf("acpconform %q: exit %d, stderr %q; want 3 (parsed, no agent there)", args, code, stderr.String())
		}
	}
	got := longFlags((&app{}).root(), []string{"agent", "-junit", "x.xml", "-response-timeout=2s", "-v", "--", "my-agent", "-junit"})
	want := []string{"agent", "--junit", "x.xml", "--response-timeout=2s", "-v", "--", "my-agent", "-junit"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("longFlags = %q, want %q", got, want)
	}
}
