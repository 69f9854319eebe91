package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// TestCompletion asks cobra's hidden __complete command, as the shells'
// scripts do, for what a prefix completes to. Rule IDs come from the
// contract, in-process; check IDs walk a catalogue, in the binary.
func TestCompletion(t *testing.T) {
	complete := func(args ...string) []string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"__complete"}, args...), strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("__complete %q: exit %d, %s", args, code, stderr.String())
		}
		return completions(stdout.String())
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"explain", "TOK-"}, []string{"TOK-1", "TOK-2", "TOK-3", "TOK-4"}},
		{[]string{"explain", "cap-"}, []string{"CAP-1", "CAP-2", "CAP-3", "CAP-4"}},
		{[]string{"explain", "TOK-1", ""}, nil}, // one ID
		{[]string{"agent", "--id", "TOK-1,CAP-"}, []string{"TOK-1,CAP-1", "TOK-1,CAP-2", "TOK-1,CAP-3", "TOK-1,CAP-4"}},
		{[]string{"list", "--for", ""}, []string{"run", "agent", "client", "relay"}},
		{[]string{"expl"}, []string{"explain"}},
	} {
		if got := complete(tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("__complete %q = %q, want %q", tc.args, got, tc.want)
		}
	}

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"agent", "--check", "TOK-2/leading-"}, []string{"TOK-2/leading-zero", "TOK-2/leading-space"}},
		{[]string{"run", "--check", "REL-1/ids"}, []string{"REL-1/ids-mapped-back"}},
		{[]string{"client", "--check", "CLI-1/"}, []string{"CLI-1/route-registered"}},
		{[]string{"client", "--check", "TOK-2/"}, nil}, // no TOK checks for a client
		{[]string{"list", "--for", "relay", "--check", "TOK-1/x,REL-1/ids"}, []string{"TOK-1/x,REL-1/ids-mapped-back"}},
		{[]string{"explain", "TOK-2/leading-"}, []string{"TOK-2/leading-zero", "TOK-2/leading-space"}}, // a check, once a "/" is typed
		{[]string{"explain", "rel-1/ids"}, []string{"REL-1/ids-mapped-back"}},                          // of any role
	} {
		r := acpconform(t, nil, append([]string{"__complete"}, tc.args...)...)
		expectCode(t, r, 0)
		if got := completions(r.stdout); !slices.Equal(got, tc.want) {
			t.Errorf("__complete %q = %q, want %q", tc.args, got, tc.want)
		}
	}

	var stdout, stderr bytes.Buffer
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		stdout.Reset()
		if code := run(context.Background(), []string{"completion", shell}, nil, &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), "__complete") {
			t.Errorf("completion %s: exit %d, %d bytes that never call __complete", shell, code, stdout.Len())
		}
	}
}

// completions are the words of __complete's answer, without their
// descriptions and the directive line.
func completions(out string) []string {
	var words []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" || strings.HasPrefix(l, ":") {
			continue
		}
		word, _, _ := strings.Cut(l, "\t")
		words = append(words, word)
	}
	return words
}
