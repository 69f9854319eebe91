package budget_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testcost"
	"github.com/acpconform/acpconform/internal/testcost/budget"
)

func TestOneProcessOverTheBudgetFails(t *testing.T) {
	budgets := map[string]budget.Costs{"interop": {testcost.Process: 2, testcost.Run: 1, testcost.Check: 5}}
	within := budget.Count([]byte("process\nprocess\nrun\ncheck\ncheck\n"))
	if err := budget.Judge("interop", within, budgets); err != nil {
		t.Errorf("within the budget: %v", err)
	}
	over := budget.Count([]byte("process\nprocess\nprocess\nrun\ncheck\n"))
	err := budget.Judge("interop", over, budgets)
	if err == nil || !strings.Contains(err.Error(), "3 processes where its budget allows 2") {
		t.Errorf("one process over the budget: %v", err)
	}
	if err := budget.Judge("mocks/peer", within, budgets); err == nil || !strings.Contains(err.Error(), "has no line") {
		t.Errorf("a package without a line: %v", err)
	}
}

func TestReadSaysWhereALineIsWrong(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"interop 1 2 3 the matrix\n", ""},
		{"# a comment\n\ninterop 1 2 3 why\n", ""},
		{"interop 1 2 3\n", "budget.txt:1: want a package, 3 counts"},
		{"interop 1 2 3 why\ninterop 1 2 3 why\n", "budget.txt:2: interop has a line already"},
		{"interop 1 x 3 why\n", `budget.txt:1: interop: "x" is not a count of runs`},
		{"interop 1 -2 3 why\n", `budget.txt:1: interop: "-2" is not a count of runs`},
	} {
		name := filepath.Join(t.TempDir(), "budget.txt")
		if err := os.WriteFile(name, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := budget.Read(name)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestNoteAppendsWhereEnvSays: each event a line of the file, from any
// goroutine; none without the variable.
func TestNoteAppendsWhereEnvSays(t *testing.T) {
	file := filepath.Join(t.TempDir(), "events")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(testcost.Env, file)
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 50 {
				testcost.Note(testcost.Check)
			}
		}()
	}
	for range 4 {
		<-done
	}
	testcost.Note(testcost.Process)
	t.Setenv(testcost.Env, "")
	testcost.Note(testcost.Process)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := budget.Count(data); got[testcost.Check] != 200 || got[testcost.Process] != 1 {
		t.Errorf("counted %s, want 200 checks and 1 process", got)
	}
}

func ExampleCosts_String() {
	fmt.Println(budget.Costs{testcost.Process: 1, testcost.Run: 2, testcost.Check: 40})
	// Output: 1 process, 2 runs, 40 checks
}
