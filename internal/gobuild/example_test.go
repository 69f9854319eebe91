package gobuild_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/internal/testcost/budget"
)

// A program built for the tests links no C: `go version -m` says
// CGO_ENABLED=0, as it does of a release.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "gobuild")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "acpconform-reference-agent")
	if err := gobuild.Run("../../cmd/acpconform-reference-agent", "-o", bin, "."); err != nil {
		panic(err)
	}
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(string(out), "CGO_ENABLED=0"), strings.Contains(string(out), "-trimpath=true"))
	// Output: true true
}

func TestMain(m *testing.M) { os.Exit(budget.Main(m)) }
