package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDidYouMean runs mistyped commands and IDs in-process: each is a
// usage error of one line that names the nearest names, escaped, since
// it quotes what was typed.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lst"}, `acpconform: unknown command "lst" for "acpconform"; did you mean list? (see acpconform --help)`},
		{[]string{"exlpain", "TOK-2"}, `unknown command "exlpain" for "acpconform"; did you mean explain?`},
		{[]string{"mutant"}, `unknown command "mutant" for "acpconform"; the commands are agent, bridge, client, completion, diff, explain, init, judge, list, merge,`},
		{[]string{"explain", "TOK-22"}, `acpconform explain: "TOK-22" is not a CONTRACT ID; did you mean TOK-2?`},
		{[]string{"explain", "tok-99"}, `"tok-99" is not a CONTRACT ID; did you mean TOK-1, TOK-2 or TOK-3?`},
		{[]string{"explain", "TOK-22/leading-zero"}, `acpconform explain: "TOK-22/leading-zero" is not a check ID: "TOK-22" is not a CONTRACT ID; did you mean TOK-2?`},
		{[]string{"run", "--id", "TOK-2/leading-zero"}, `acpconform run: --id: "TOK-2/leading-zero" is a check ID, not a CONTRACT ID; its rule is TOK-2`},
		{[]string{"agent", "--id", "CAP-33", "--", "x"}, `acpconform agent: --id: "CAP-33" is not a CONTRACT ID; did you mean CAP-3?`},
		{[]string{"explain", "TOK-2\x1b[2J"}, `"TOK-2\x1b[2J" is not a CONTRACT ID (see acpconform list)`}, // escaped
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || stdout.Len() > 0 {
			t.Errorf("acpconform %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout.String(), stderr.String(), tc.want)
		}
		if strings.ContainsRune(stderr.String(), 0x1b) {
			t.Errorf("acpconform %q: stderr holds an escape character: %q", tc.args, stderr.String())
		}
		if n := strings.Count(strings.TrimSpace(stderr.String()), "\n"); n > 0 {
			t.Errorf("acpconform %q: a usage error is one line, not %d:\n%s", tc.args, n+1, stderr.String())
		}
	}
}
