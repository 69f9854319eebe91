package elide_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/elide"
)

func TestHeadAndTailBoundTheText(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for name, got := range map[string]string{"Head": elide.Head(long, 100), "Tail": elide.Tail(long, 100)} {
		if len(got) > 100+40 || !strings.Contains(got, "[1048576 bytes in all]") {
			t.Errorf("%s of 1 MiB = %d bytes %q", name, len(got), got[:60])
		}
	}
	if got := elide.Head("short", 100); got != "short" {
		t.Errorf("Head changed a short text: %q", got)
	}
	if got := elide.Tail("ab\nLAST", 5); !strings.HasSuffix(got, "\nLAST") {
		t.Errorf("Tail = %q, want the end kept", got)
	}
}

func TestCutsFallOnRuneBoundaries(t *testing.T) {
	s := strings.Repeat("é", 100) // two bytes each
	for _, got := range []string{elide.Head(s, 51), elide.Tail(s, 51)} {
		if strings.ContainsRune(got, '\uFFFD') || !strings.Contains(got, "é") {
			t.Errorf("a rune was split: %q", got)
		}
		if !strings.Contains(got, "[200 bytes in all]") {
			t.Errorf("no size: %q", got)
		}
	}
}

func TestLines(t *testing.T) {
	got := elide.Lines("a\n"+strings.Repeat("b", 50)+"\nc\nd", 3, 10)
	if want := "a\nbbbbbbbbbb … [50 bytes in all]\nc\n… [1 more lines]"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}

func ExampleHead() {
	fmt.Println(elide.Head("a subject's very long answer", 16))
	// Output: a subject's very … [28 bytes in all]
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{map[string]any{"a": []any{1, "é"}}, `{"a":[1,"é"]}`},
		{strings.Repeat("é", 40), `"` + strings.Repeat("é", 9) + ` … [82 bytes in all]`},
		{func() {}, "0x"}, // not JSON: as fmt prints it
	} {
		if got := elide.JSON(tc.v, 20); !strings.HasPrefix(got, tc.want) {
			t.Errorf("JSON(%T, 20) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
