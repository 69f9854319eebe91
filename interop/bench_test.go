package interop_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The catalogue against each kind of subject, end to end: the acpconform
// CLI as a pipeline runs it, one run per iteration. Targets on two cores
// (docs/interop.md#speed): the in-process reference 0.25 s, the Go
// reference over stdio (acpconform-reference-agent) 0.5 s, the TypeScript
// agent adapter on Node 5 s, a Python adapter of the standard library
// alone 3 s. go-stdio-cli is the same agent as the whole CLI's
// reference-agent command, for comparison.
//
//	go test -run '^$' -bench Catalogue -benchtime 3x ./interop
func BenchmarkCatalogue(b *testing.B) {
	quiet := []string{"--junit", "", "--json", "", "--summary", ""}
	kinds := []struct {
		name string
		args []string
	}{
		{"in-process", append([]string{"run", "--label-filter", "role: containsAny agent"}, quiet...)},
		{"in-process-every-role", append([]string{"run"}, quiet...)},
		{"go-stdio", append(append([]string{"agent"}, quiet...), "--", referenceAgent)},
		{"go-stdio-cli", append(append([]string{"agent"}, quiet...), "--", bin, "reference-agent")},
		{"node-ts", append(append([]string{"agent"}, quiet...), "--", node, tsAgent(b))},
		{"python-stdlib", append(append([]string{"agent"}, quiet...), "--", python3, pyAgent)},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				if out, err := exec.Command(bin, k.args...).CombinedOutput(); err != nil {
					b.Fatalf("acpconform %v: %v\n%s", k.args, err, out)
				}
			}
		})
	}
}

// BenchmarkTypeScriptCatalogueFloor times, in one run, the TypeScript
// agent's whole catalogue and its floor: as many bare starts of the same
// agent as the catalogue starts, each until it answers initialize, one
// at a time per core, as the cores allow at best. It reports both, in
// seconds, and the catalogue's time as a multiple of the floor
// (docs/interop.md#speed: the aim is at most 1.3).
//
//	go test -run '^$' -bench TypeScriptCatalogueFloor -benchtime 3x ./interop
func BenchmarkTypeScriptCatalogueFloor(b *testing.B) {
	quiet := []string{"--junit", "", "--json", "", "--summary", "", "--html", ""}
	// How many processes the catalogue starts: a shim counts them once.
	count := filepath.Join(b.TempDir(), "starts")
	agent := tsAgent(b)
	shim := []string{"sh", "-c", `echo >> "$0"; exec "$@"`, count, node, agent}
	if out, err := exec.Command(bin, append(append([]string{"agent"}, quiet...), append([]string{"--"}, shim...)...)...).CombinedOutput(); err != nil {
		b.Fatalf("acpconform agent (counting starts): %v\n%s", err, out)
	}
	data, err := os.ReadFile(count)
	if err != nil {
		b.Fatal(err)
	}
	starts := strings.Count(string(data), "\n")
	var floor, catalogue time.Duration
	for b.Loop() {
		began := time.Now()
		if err := bareStarts(starts, runtime.GOMAXPROCS(0), node, agent); err != nil {
			b.Fatal(err)
		}
		floor += time.Since(began)
		began = time.Now()
		if out, err := exec.Command(bin, append(append([]string{"agent"}, quiet...), "--", node, agent)...).CombinedOutput(); err != nil {
			b.Fatalf("acpconform agent: %v\n%s", err, out)
		}
		catalogue += time.Since(began)
	}
	n := float64(b.N)
	b.ReportMetric(float64(starts), "starts")
	b.ReportMetric(floor.Seconds()/n, "floor-s")
	b.ReportMetric(catalogue.Seconds()/n, "catalogue-s")
	b.ReportMetric(catalogue.Seconds()/floor.Seconds(), "x-floor")
}

// bareStarts starts argv n times, at most parallel at once, and waits for
// each to answer initialize, then closes its stdin and waits for its exit.
func bareStarts(n, parallel int, argv ...string) error {
	errs := make(chan error, n)
	slots := make(chan struct{}, parallel)
	for range n {
		slots <- struct{}{}
		go func() {
			defer func() { <-slots }()
			errs <- bareStart(argv)
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			return err
		}
	}
	return nil
}

func bareStart(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Wait()
	defer in.Close()
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n"); err != nil {
		return err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, `"result"`) {
		return fmt.Errorf("%s: no answer to initialize (%v): %q", strings.Join(argv, " "), err, line)
	}
	return nil
}
