package elide_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/internal/reportcheck"
)

// commandLines are lines a subject could write to become workflow
// commands, each as GitHub's runner would read it.
var commandLines = []string{
	"::add-mask::secret",
	"  ::stop-commands::token",
	"\t::error file=a.go,line=1::forged",
	"\u00a0\u3000::warning::forged",
	"::set-output name=exit-code::0",
	"##[error]forged",
	"text ##[group]forged",
	"### ##[section]",
	"a\r::add-mask::after a lone CR",
}

func TestNoCommandsLeavesNoWorkflowCommand(t *testing.T) {
	log := strings.Join(commandLines, "\n")
	if got := reportcheck.WorkflowCommands(log); len(got) != len(commandLines) {
		t.Fatalf("the runner stand-in finds %d commands in %q, want %d", len(got), got, len(commandLines))
	}
	for name, e := range map[string]elide.CommandEscapes{"text": elide.TextEscapes, "json": elide.JSONEscapes, "xml": elide.XMLEscapes, "markdown": elide.MarkdownEscapes} {
		if got := reportcheck.WorkflowCommands(elide.NoCommandsString(log, e)); got != nil {
			t.Errorf("%s: workflow commands left: %q", name, got)
		}
		// Written a byte at a time, the lines still start where they did.
		var b bytes.Buffer
		w := elide.NoCommands(&b, e)
		for i := range len(log) {
			if _, err := w.Write([]byte{log[i]}); err != nil {
				t.Fatal(err)
			}
		}
		if b.String() != elide.NoCommandsString(log, e) {
			t.Errorf("%s: a byte at a time gives %q, whole %q", name, b.String(), elide.NoCommandsString(log, e))
		}
	}
}

func TestNoCommandsLeavesOtherTextAlone(t *testing.T) {
	for _, s := range []string{"ws://[::1]:8080/", "a :: b", "## heading", "# ## [x]", "x::y", "#[", "plain"} {
		if got := elide.NoCommandsString(s, elide.TextEscapes); got != s {
			t.Errorf("NoCommandsString(%q) = %q, want it unchanged", s, got)
		}
	}
}

func ExampleNoCommands() {
	w := elide.NoCommands(os.Stdout, elide.TextEscapes)
	w.Write([]byte("the subject said:\n  ::add-mask::x\nand ##[error]y\n"))
	// Output:
	// the subject said:
	//   \x3a:add-mask::x
	// and ##\x5berror]y
}
