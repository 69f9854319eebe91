package probeagent_test

import (
	"os"
	"testing"

	"github.com/acpconform/acpconform/internal/testcost/budget"
)

// TestMain holds the package's tests to their line in ci/budget.txt.
func TestMain(m *testing.M) { os.Exit(budget.Main(m)) }
