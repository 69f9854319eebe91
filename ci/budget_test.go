package ci

import (
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testcost/budget"
)

// TestEveryPackageThatStartsProcessesHasABudget fails when the tests of a
// package can start processes or run checks, but its TestMain is not
// budget.Main: the cost of its tests would grow unseen. They can when its
// test files import os/exec or proc, or when its test binary links a
// package where testcost counts (one that imports proc or testcost). It
// also wants every such package to have its line in ci/budget.txt, and
// every line to name such a package.
func TestEveryPackageThatStartsProcessesHasABudget(t *testing.T) {
	const (
		proc     = module + "/internal/proc"
		testcost = module + "/internal/testcost"
		budgeted = module + "/internal/testcost/budget"
	)
	// A line per package: its path, then its imports, then what its test
	// files import. A test binary's line (path.test) has its deps instead.
	const format = `{{if not .ForTest}}{{.ImportPath}}{{range .Imports}} {{.}}{{end}} |` +
		`{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}{{range .Deps}} {{.}}{{end}}{{end}}`
	out, err := exec.Command("go", "list", "-test", "-f", format, module+"/...").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	counting := map[string]bool{proc: true} // packages where testcost counts
	testImports := map[string][]string{}
	binaries := map[string][]string{} // package → its test binary's deps
	for _, line := range strings.Split(string(out), "\n") {
		before, after, _ := strings.Cut(line, "|")
		fields := strings.Fields(before)
		if len(fields) == 0 {
			continue
		}
		if pkg, ok := strings.CutSuffix(fields[0], ".test"); ok {
			binaries[pkg] = strings.Fields(after)
			continue
		}
		if (slices.Contains(fields[1:], proc) || slices.Contains(fields[1:], testcost)) && fields[0] != budgeted {
			counting[fields[0]] = true
		}
		testImports[fields[0]] = strings.Fields(after)
	}
	starts := map[string]bool{} // package → its tests start processes or run checks
	for pkg, deps := range binaries {
		imports := testImports[pkg]
		starts[pkg] = slices.Contains(imports, "os/exec") || slices.Contains(imports, proc) ||
			slices.ContainsFunc(deps, func(d string) bool { return counting[d] })
	}
	for pkg := range starts {
		if !starts[pkg] {
			delete(starts, pkg)
		}
	}
	for pkg := range starts {
		if !slices.Contains(binaries[pkg], budgeted) {
			t.Errorf("%s: its tests start processes, but its TestMain is not budget.Main: give it one: func TestMain(m *testing.M) { os.Exit(budget.Main(m)) }", strings.TrimPrefix(pkg, module+"/"))
		}
	}
	budgets, err := budget.Read(filepath.Join("..", budget.File))
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range starts {
		rel := strings.TrimPrefix(pkg, module+"/")
		if _, ok := budgets[rel]; !ok {
			t.Errorf("%s: its tests start processes, but %s has no line for it", rel, budget.File)
		}
	}
	for rel := range budgets {
		if !starts[module+"/"+rel] {
			t.Errorf("%s names %s, whose tests start no process: remove its line", budget.File, rel)
		}
	}
}
