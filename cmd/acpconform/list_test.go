package main

import (
	"slices"
	"strings"
	"testing"
)

// listedIDs reads the check IDs of list's selection: the lines after the
// first, which says how many of how many.
func listedIDs(t *testing.T, r result) (head string, ids []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	for _, l := range lines[1:] {
		ids = append(ids, strings.Fields(l)[0])
	}
	return lines[0], ids
}

// TestListSelection lists what selections select, through the binary
// (a catalogue walks once per process): the checks a run with the same
// flags selects, for the catalogue --for names, and a selection of none
// is a usage error with the hint a run gives.
func TestListSelection(t *testing.T) {
	t.Parallel()
	r := acpconform(t, nil, "list", "--check", "TOK-2/*")
	expectCode(t, r, 0)
	head, ids := listedIDs(t, r)
	if !strings.HasPrefix(head, "36 of 288 checks of acpconform run's catalogue") || len(ids) != 36 || !slices.Contains(ids, "TOK-2/leading-zero") {
		t.Errorf("list --check 'TOK-2/*': %q, %d checks:\n%s", head, len(ids), r.stdout)
	}
	for _, id := range ids {
		if !strings.HasPrefix(id, "TOK-2/") {
			t.Errorf("list --check 'TOK-2/*' lists %s", id)
		}
	}
	if !strings.Contains(r.stdout, "TOK-2/leading-zero ") || !strings.Contains(r.stdout, "  MUST    TOK-2\n") {
		t.Errorf("list --check 'TOK-2/*' does not show each check's level and rules:\n%s", r.stdout)
	}

	// --for: a client's catalogue (CLI, ELI-4..8 and REM-1), its CLI checks.
	r = acpconform(t, nil, "list", "--for", "client", "--check", "CLI-*")
	expectCode(t, r, 0)
	if head, ids := listedIDs(t, r); !strings.HasPrefix(head, "18 of 34 checks of acpconform client's catalogue") || len(ids) != 18 || slices.Contains(ids, "TOK-2/leading-zero") {
		t.Errorf("list --for client --check 'CLI-*': %q, %d checks", head, len(ids))
	}

	// --no-probe adds agent --no-probe's own filter.
	r = acpconform(t, nil, "list", "--for", "agent", "--no-probe")
	expectCode(t, r, 0)
	head, ids = listedIDs(t, r)
	if !strings.HasSuffix(head, " of 218 checks of acpconform agent's catalogue") || len(ids) == 0 || len(ids) > 10 {
		t.Errorf("list --for agent --no-probe: %q, %d checks; want the few wire-only ones", head, len(ids))
	}
	for _, id := range ids {
		if !strings.Contains(id, "/wire-") {
			t.Errorf("list --for agent --no-probe lists %s, no wire-only check", id)
		}
	}

	// --shard deals as a run deals: the shards' shares make the whole.
	r = acpconform(t, nil, "list", "--id", "TOK-2")
	expectCode(t, r, 0)
	_, whole := listedIDs(t, r)
	var dealt []string
	for _, shard := range []string{"1/2", "2/2"} {
		r := acpconform(t, nil, "list", "--id", "TOK-2", "--shard", shard)
		expectCode(t, r, 0)
		_, ids := listedIDs(t, r)
		dealt = append(dealt, ids...)
	}
	slices.Sort(whole)
	slices.Sort(dealt)
	if len(whole) == 0 || !slices.Equal(whole, dealt) {
		t.Errorf("list --id TOK-2 lists %d checks, its two shards %d between them", len(whole), len(dealt))
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--check", "TOK-2/leading-zeroes"}, `acpconform list: the selection selects no check of acpconform run's catalogue: no check matches the selection (288 checks deselected); --check TOK-2/leading-zeroes matches no check; did you mean TOK-2/leading-zero?`},
		{[]string{"--check", "TOK-22/*"}, `no rule TOK-22 has checks here; did you mean 'TOK-2/*'?`},
		{[]string{"--check", "tok-2"}, `--check tok-2 names a rule, not a check: --id TOK-2, or --check 'TOK-2/*'`},
		{[]string{"--for", "client", "--id", "TOK-2"}, `TOK-2 is a rule of the agent role, and this run checks the client role`},
		{[]string{"--for", "client", "--check", "TOK-*"}, `--check TOK-* selects checks of the agent role, and this run checks the client role`},
		{[]string{"--for", "relay", "--check", "cli-1/route-registered"}, `--check cli-1/route-registered selects checks of the client role, and this run checks the relay role`},
		{[]string{"--for", "agnt"}, `--for "agnt": the commands that run checks are run, agent, client, relay; did you mean agent?`},
		{[]string{"--check", "TOK-2/\x1b]0;pwned\x07"}, `--check TOK-2/\x1b]0;pwned\x07 matches no check`}, // escaped
	} {
		r := acpconform(t, nil, append([]string{"list"}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("acpconform list %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}

	// A run that selects nothing gives the same hint, and exits 4.
	r = acpconform(t, nil, "run", "--check", "TOK-2/leading-zeroes")
	if r.code != 4 || !strings.Contains(r.stderr, "nothing checked: no check matches the selection (288 checks deselected); --check TOK-2/leading-zeroes matches no check; did you mean TOK-2/leading-zero?") {
		t.Errorf("acpconform run --check TOK-2/leading-zeroes: exit %d, stderr %q; want 4 and the nearest check", r.code, r.stderr)
	}
}
