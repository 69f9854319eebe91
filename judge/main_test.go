package judge_test

import (
	"os"
	"testing"

	"github.com/acpconform/acpconform/internal/testcost/budget"
)

// The judge imports suite, whose subjects start processes: its tests
// start none, and ci/budget.txt holds them to that.
func TestMain(m *testing.M) { os.Exit(budget.Main(m)) }
