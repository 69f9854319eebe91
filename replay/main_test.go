package replay_test

import (
	"os"
	"testing"

	"github.com/acpconform/acpconform/internal/testcost/budget"
)

// The tests replay to the reference in-process: they start no process,
// and ci/budget.txt holds them to that.
func TestMain(m *testing.M) { os.Exit(budget.Main(m)) }
