// Package budget holds each package's tests to their cost, counted by
// testcost: a package whose TestMain is Main fails when its tests start
// more subject processes, run more catalogues or execute more checks than
// its line in ci/budget.txt allows. A change that adds cost raises that
// line in the same commit, with its reason, where a reviewer sees it.
//
// Only the whole package's run is held to its budget: with -run, -skip,
// -short or a -count other than 1 the counts are printed, not judged.
package budget

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testcost"
)

// File is the budget's path from the module's root.
const File = "ci/budget.txt"

// Costs are counts by kind.
type Costs map[testcost.Kind]int

// String is the costs in the budget's order: "12 processes, 1 run, 40 checks".
func (c Costs) String() string {
	parts := make([]string, len(testcost.Kinds))
	for i, k := range testcost.Kinds {
		parts[i] = fmt.Sprintf("%d %s", c[k], plural(k, c[k]))
	}
	return strings.Join(parts, ", ")
}

func plural(k testcost.Kind, n int) string {
	if n == 1 {
		return string(k)
	}
	if k == testcost.Process {
		return "processes"
	}
	return string(k) + "s"
}

// Main runs the package's tests with testcost counting, then holds the
// counts to the package's budget; it returns the exit code for os.Exit.
func Main(m *testing.M) int {
	if os.Getenv(testcost.Env) != "" {
		return m.Run() // a test binary a budgeted test started: its events are the parent's
	}
	events, err := os.CreateTemp("", "acpconform-test-cost")
	if err != nil {
		fmt.Fprintf(os.Stderr, "budget: %v\n", err)
		return 1
	}
	events.Close()
	defer os.Remove(events.Name())
	os.Setenv(testcost.Env, events.Name())
	code := m.Run()
	os.Unsetenv(testcost.Env)
	if code != 0 {
		return code // the failures say what matters
	}
	data, err := os.ReadFile(events.Name())
	if err != nil {
		fmt.Fprintf(os.Stderr, "budget: %v\n", err)
		return 1
	}
	counted := Count(data)
	root, pkg, err := where()
	if err != nil {
		fmt.Fprintf(os.Stderr, "budget: %v\n", err)
		return 1
	}
	if why := partial(); why != "" {
		fmt.Printf("budget: %s: %s (not judged: %s)\n", pkg, counted, why)
		return 0
	}
	budgets, err := Read(filepath.Join(root, File))
	if err != nil {
		fmt.Fprintf(os.Stderr, "budget: %v\n", err)
		return 1
	}
	if err := Judge(pkg, counted, budgets); err != nil {
		fmt.Fprintf(os.Stderr, "budget: %v\n", err)
		return 1
	}
	fmt.Printf("budget: %s: %s, within %s\n", pkg, counted, budgets[pkg])
	return 0
}

// Count totals the events of a testcost file.
func Count(events []byte) Costs {
	c := Costs{}
	for _, line := range bytes.Split(events, []byte("\n")) {
		if len(line) > 0 {
			c[testcost.Kind(line)]++
		}
	}
	return c
}

// Judge returns an error that says what to do when counted exceeds the
// budget of pkg, or when pkg has no budget.
func Judge(pkg string, counted Costs, budgets map[string]Costs) error {
	allowed, ok := budgets[pkg]
	if !ok {
		return fmt.Errorf("%s has no line in %s; its tests cost %s: add the line, with what the cost buys", pkg, File, counted)
	}
	var over []string
	for _, k := range testcost.Kinds {
		if counted[k] > allowed[k] {
			over = append(over, fmt.Sprintf("%d %s where its budget allows %d", counted[k], plural(k, counted[k]), allowed[k]))
		}
	}
	if len(over) > 0 {
		return fmt.Errorf("the tests of %s cost more than %s allows: %s.\n"+
			"Remove the repetition, or raise the line in the same commit and say why (%s)",
			pkg, File, strings.Join(over, "; "), counted)
	}
	return nil
}

// Read parses a budget file: a line per package, its path from the
// module's root and a count per kind, then why, after '#'-comment and
// blank lines.
func Read(name string) (map[string]Costs, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	budgets := map[string]Costs{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 1+len(testcost.Kinds)+1 {
			return nil, fmt.Errorf("%s:%d: want a package, %d counts (%s) and why", name, n, len(testcost.Kinds), kindNames())
		}
		pkg := fields[0]
		if _, dup := budgets[pkg]; dup {
			return nil, fmt.Errorf("%s:%d: %s has a line already", name, n, pkg)
		}
		c := Costs{}
		for i, k := range testcost.Kinds {
			v, err := strconv.Atoi(fields[1+i])
			if err != nil || v < 0 {
				return nil, fmt.Errorf("%s:%d: %s: %q is not a count of %s", name, n, pkg, fields[1+i], plural(k, 2))
			}
			c[k] = v
		}
		budgets[pkg] = c
	}
	return budgets, sc.Err()
}

func kindNames() string {
	names := make([]string, len(testcost.Kinds))
	for i, k := range testcost.Kinds {
		names[i] = plural(k, 2)
	}
	return strings.Join(names, ", ")
}

// where returns the module's root and the package's path from it: go test
// runs a test binary in its package's folder.
func where() (root, pkg string, err error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for root = dir; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(root) == root {
			return "", "", errors.New("no go.mod above " + dir)
		}
	}
	rel, err := filepath.Rel(root, dir)
	return root, filepath.ToSlash(rel), err
}

// partial says why this run is not the package's whole suite, if it is not.
func partial() string {
	for _, name := range []string{"test.run", "test.skip", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return "-" + strings.TrimPrefix(name, "test.") + " " + f.Value.String()
		}
	}
	if testing.Short() {
		return "-short"
	}
	if f := flag.Lookup("test.count"); f != nil && f.Value.String() != "1" {
		return "-count " + f.Value.String()
	}
	return ""
}
