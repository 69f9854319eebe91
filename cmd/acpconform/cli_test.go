package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunDispatch(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		inStderr string
	}{
		{nil, exitUsage, "usage: acpconform"},
		{[]string{"--help"}, exitOK, "reference-agent"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"reference-agent", "--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{[]string{"reference-agent", "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"reference-agent"}, exitOK, ""}, // empty stdin: serves nothing and exits
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.inStderr) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.inStderr)
		}
	}
}
