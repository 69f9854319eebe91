package waitbound

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

func TestParallelRaisesOnlyTheDefault(t *testing.T) {
	f := flag.Lookup("test.parallel")
	if f == nil {
		t.Fatal("no -test.parallel flag: not run by go test?")
	}
	given := false
	flag.Visit(func(v *flag.Flag) { given = given || v.Name == "test.parallel" })
	if given {
		t.Skip("-parallel was given on the command line")
	}
	before := f.Value.String()
	t.Cleanup(func() { _ = f.Value.Set(before) })

	Parallel(3)
	if got, want := f.Value.String(), strconv.Itoa(3*runtime.GOMAXPROCS(0)); got != want {
		t.Errorf("after Parallel(3), -test.parallel is %s, want %s", got, want)
	}
	// The value is now set, as a -parallel on the command line would be:
	// a second call keeps it.
	Parallel(5)
	if got, want := f.Value.String(), strconv.Itoa(3*runtime.GOMAXPROCS(0)); got != want {
		t.Errorf("after Parallel(5) on a set -parallel, it is %s, want %s kept", got, want)
	}
}
