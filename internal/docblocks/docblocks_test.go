package docblocks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/docblocks"
)

func ExampleParse() {
	doc := "Run it:\n\n```console\n$ acpconform list --bogus  # exits 2\nError: unknown flag: --bogus\n...\n```\n\n" +
		"<!-- not run: needs Docker -->\n```sh\ndocker run --rm acpconform run\n```\n"
	blocks, err := docblocks.Parse("page.md", []byte(doc))
	if err != nil {
		fmt.Println(err)
	}
	for _, b := range blocks {
		for _, c := range b.Commands {
			fmt.Printf("page.md:%d %s exits %d, not run: %q, shows %q\n", c.Line, b.Lang, c.Exit, b.NotRun, c.Want)
		}
	}
	// Output:
	// page.md:4 console exits 2, not run: "", shows "Error: unknown flag: --bogus\n...\n"
	// page.md:11 sh exits 0, not run: "needs Docker", shows ""
}

func TestParseRefuses(t *testing.T) {
	for name, doc := range map[string]string{
		"an untagged fence":           "```\ngo test ./...\n```\n",
		"bash for sh":                 "```bash\ngo test ./...\n```\n",
		"a marker without a reason":   "<!-- not run: -->\n```sh\ngo test ./...\n```\n",
		"an unclosed fence":           "```sh\ngo test ./...\n",
		"output before a command":     "```console\nok\n$ true\n```\n",
		"a sh block without commands": "```sh\n# nothing\n```\n",
	} {
		if _, err := docblocks.Parse("page.md", []byte(doc)); err == nil || !strings.Contains(err.Error(), "page.md:") {
			t.Errorf("%s: Parse gave %v, want an error naming page.md:LINE", name, err)
		}
	}
}

func TestParseSkipsOtherLanguages(t *testing.T) {
	blocks, err := docblocks.Parse("page.md", []byte("```text\n$ not a command\n```\n  ```go\nfunc main() {}\n  ```\n"))
	if err != nil || len(blocks) != 0 {
		t.Errorf("Parse gave %v, %v; want no blocks and no error", blocks, err)
	}
}

func TestParseIndentedAndContinued(t *testing.T) {
	doc := "- a step:\n\n  ```sh\n  go build \\\n    ./...\n  true\n  ```\n"
	blocks, err := docblocks.Parse("page.md", []byte(doc))
	if err != nil || len(blocks) != 1 || len(blocks[0].Commands) != 2 {
		t.Fatalf("Parse gave %+v, %v; want one block of two commands", blocks, err)
	}
	if got, want := blocks[0].Commands[0].Text, "go build \\\n  ./..."; got != want {
		t.Errorf("first command %q, want %q", got, want)
	}
	if got := blocks[0].Commands[1].Line; got != 6 {
		t.Errorf("second command on line %d, want 6", got)
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb\n", "a\nb\n", true},
		{"a\nb\n", "a\nc\n", false},
		{"a\n", "a\nb\n", false},
		{"...\nb\n", "x\ny\nb\n", true},
		{"...\nb\n", "b\n", true},
		{"a\n...\n", "a\n", true},
		{"done in ...s\n", "done in 1.29s\n", true},
		{"done in ...s\n", "done in 1.29m\n", false},
		{"a.b\n", "axb\n", false}, // no regexp but "..."
		{"...\nb\n...\nd\n", "a\nb\nc\nd\n", true},
		{"...\nd\n...\nb\n", "a\nb\nc\nd\n", false},
	} {
		if err := docblocks.Match(c.want, c.got); (err == nil) != c.ok {
			t.Errorf("Match(%q, %q) = %v, want ok %v", c.want, c.got, err, c.ok)
		}
	}
}

func TestMatchSaysWhere(t *testing.T) {
	err := docblocks.Match("...\nstarting\nNOT conformant: 2 checks failed\n", "noise\nstarting\nNOT conformant: 1 check failed\n")
	if err == nil || !strings.Contains(err.Error(), "want: NOT conformant: 2 checks failed") || !strings.Contains(err.Error(), "got:  NOT conformant: 1 check failed (output line 3)") {
		t.Errorf("Match gave %v, want the shown line 3 against the output's line 3", err)
	}
}
