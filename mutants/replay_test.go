package mutants

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
)

// A session recorded with the reference agent replays to it alike, and to
// each mutant of what it sends fails, naming the first message that
// differs and the member: a recorded session is a regression test, and it
// sees what the judge of one trace cannot (a question trimmed is still a
// question).
func TestReplayFailsTheMutants(t *testing.T) {
	t.Parallel()
	ref := reference(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ctx := testbound.Context(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	prompt := `{"acpconform":1,"op":"ask_choice","question":"  Deploy where? ","choices":[{"value":"staging","label":" Staging"},{"value":"prod","label":"Production"}]}`
	record := ref.command(ctx, "reference-client", "--prompt", prompt, "--agent", ref.path+" record --trace "+path+" -- "+ref.agent())
	if out, err := record.CombinedOutput(); err != nil {
		t.Fatalf("recording the reference: %v\n%s", err, out)
	}
	replay := func(b binary) (int, string) {
		cmd := b.command(ctx, "replay", path, "--", b.agent())
		out, _ := cmd.CombinedOutput()
		if timeout := testbound.TimedOut(ctx); timeout != nil {
			t.Fatalf("replay: %v\n%s", timeout, out)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := replay(ref); code != 0 {
		t.Fatalf("the reference's own session: exit %d:\n%s", code, out)
	}
	for _, tc := range []struct{ mutant, member string }{
		{"question-trimmed", "params.message"},
		{"labels-trimmed", "params.requestedSchema.properties.choice.oneOf[0].title"},
		{"choice-title-renamed", "params.requestedSchema.properties.choice.title"},
		{"tokens-from-one", "params.requestedSchema.properties.choice.oneOf[0].const"},
	} {
		m, ok := byName(tc.mutant)
		if !ok {
			t.Fatalf("no mutant %s", tc.mutant)
		}
		code, out := replay(binaryOf(t, root, m))
		if want := "the agent's message 3 (trace line 7) differs: " + tc.member + ": recorded "; code != 1 || !strings.Contains(out, want) {
			t.Errorf("replay to %s: exit %d, want 1 with %q:\n%s", tc.mutant, code, want, out)
		}
	}
}

func byName(name string) (Mutant, bool) {
	for _, m := range All {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}
