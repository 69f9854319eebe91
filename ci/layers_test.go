package ci

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// module is the import path the layers are named under.
const module = "github.com/acpconform/acpconform"

// layers is the house, from the top: a package's non-test files import
// only packages of its own layer or a lower one, so that what a lower
// layer means never depends on a higher one (see the package comment).
// The first prefix that matches a package's path names its layer.
var layers = [][]string{
	{"cmd/", "interop", "ci"},
	{"scenarios", "mutants"},
	{"suite", "judge", "replay"},
	{"mocks/", "kit"},
	{"reference"},
	{"reports", "probe", "trace"},
	{"internal/"},
}

// layerOf is the layer of a package of the module, 0 at the top; -1 for
// a package no layer names.
func layerOf(path string) int {
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return -1
	}
	for i, layer := range layers {
		for _, prefix := range layer {
			if rel == strings.TrimSuffix(prefix, "/") || strings.HasPrefix(rel, strings.TrimSuffix(prefix, "/")+"/") {
				return i
			}
		}
	}
	return -1
}

// TestLayers fails when a package's non-test files import a package of
// a higher layer, or when a package belongs to no layer.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	problems := layerProblems(t, out)
	for _, p := range problems {
		t.Error(p)
	}
}

// layerProblems reads go list -json's packages and says which break the
// house.
func layerProblems(t *testing.T, list []byte) []string {
	t.Helper()
	var problems []string
	dec := json.NewDecoder(bytes.NewReader(list))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list -json: %v", err)
		}
		from := layerOf(p.ImportPath)
		if from < 0 {
			problems = append(problems, p.ImportPath+" belongs to no layer: name it in ci/layers_test.go and in the package comment of ci")
			continue
		}
		for _, imp := range p.Imports {
			if to := layerOf(imp); to >= 0 && to < from {
				problems = append(problems, p.ImportPath+" imports "+imp+", a package of a higher layer: move the code the two share down, or the importer up")
			}
		}
	}
	return problems
}

// TestLayersCatchAnImportUpward shows the check failing: reference,
// importing the kit that is built on it, is an import upward.
func TestLayersCatchAnImportUpward(t *testing.T) {
	list := []byte(`{"ImportPath":"` + module + `/reference","Imports":["fmt","` + module + `/kit"]}
{"ImportPath":"` + module + `/kit","Imports":["` + module + `/reference","` + module + `/probe"]}
{"ImportPath":"` + module + `/elsewhere","Imports":[]}`)
	problems := layerProblems(t, list)
	if len(problems) != 2 || !strings.Contains(problems[0], "reference imports "+module+"/kit, a package of a higher layer") ||
		!strings.Contains(problems[1], "elsewhere belongs to no layer") {
		t.Errorf("problems = %q, want reference's import of kit and elsewhere's lack of a layer", problems)
	}
}

// TestSlimBinariesLinkNoJSONSchemaValidator: the reference agent and
// client alone start once per check of a catalogue over stdio, and the
// JSON Schema library compiles every draft's meta-schemas as a program
// starts (a fifth of the CLI's start); package probe reads requests
// without it.
func TestSlimBinariesLinkNoJSONSchemaValidator(t *testing.T) {
	for _, cmd := range []string{"acpconform-reference-agent", "acpconform-reference-client"} {
		out, err := exec.Command("go", "list", "-deps", module+"/cmd/"+cmd).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", cmd, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.Contains(dep, "jsonschema") {
				t.Errorf("%s links %s", cmd, dep)
			}
		}
	}
}
