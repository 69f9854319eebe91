package interop_test

import (
	"os/exec"
	"testing"
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
		{"node-ts", append(append([]string{"agent"}, quiet...), "--", node, tsAgent)},
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
