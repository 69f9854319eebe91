package ci

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/testbound"
)

// TestGoreleaserCheck validates .goreleaser.yaml with the goreleaser on
// PATH. It is skipped without one: goreleaser takes minutes and gigabytes
// to build, too much for every CI run (docs/ci/README.md says how to get it).
func TestGoreleaserCheck(t *testing.T) {
	bin, err := exec.LookPath("goreleaser")
	if err != nil {
		t.Skip("no goreleaser on PATH: go install github.com/goreleaser/goreleaser/v2@v2.15.1")
	}
	ctx := testbound.Context(t)
	cmd := exec.CommandContext(ctx, bin, "check", ".goreleaser.yaml")
	cmd.Dir = root(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser check: %v\n%s", testbound.Err(ctx, err), out)
	}
}

// dockerfile is what the test reads of the Dockerfile: its stages'
// instructions, one a line (it has no continuation lines).
type dockerfile struct {
	stages [][]string // each stage's instructions, FROM first
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	f, err := os.Open(filepath.Join(root(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var d dockerfile
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasSuffix(line, `\`):
			t.Fatalf("Dockerfile: a continued line, which this test does not read: %s", line)
		case strings.HasPrefix(line, "FROM "):
			d.stages = append(d.stages, nil)
		case len(d.stages) == 0:
			t.Fatalf("Dockerfile: %s before the first FROM", line)
		}
		d.stages[len(d.stages)-1] = append(d.stages[len(d.stages)-1], line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(d.stages) != 2 {
		t.Fatalf("Dockerfile: %d stages, want 2: a builder and the image", len(d.stages))
	}
	return d
}

// TestDockerfileBuilderIsGoModsGo: the builder image is go.mod's go
// version, the one the module needs and the one it is tested with.
func TestDockerfileBuilderIsGoModsGo(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(data)
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	from := readDockerfile(t).stages[0][0]
	if want := "FROM golang:" + string(goLine[1]) + " AS build"; from != want {
		t.Errorf("Dockerfile builder %q, want %q (go.mod's go line)", from, want)
	}
}

// TestDockerfileBuilds runs the builder's RUN commands in the repository,
// writing /out to a temporary folder, and the binary they build; it checks
// that the image's ENTRYPOINT is the binary it copies from the builder.
func TestDockerfileBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acpconform")
	}
	d := readDockerfile(t)
	out := t.TempDir()
	ctx := testbound.Context(t)
	built := false
	for _, line := range d.stages[0][1:] {
		cmdline, ok := strings.CutPrefix(line, "RUN ")
		if !ok {
			continue
		}
		built = built || strings.Contains(cmdline, "-o /out/acpconform ")
		cmd := exec.CommandContext(ctx, "sh", "-c", strings.ReplaceAll(cmdline, "/out/", out+"/"))
		cmd.Dir = root(t)
		cmd.WaitDelay = 5 * time.Second // after a kill by the bound, what sh started may hold its output
		if output, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, testbound.Err(ctx, err), output)
		}
	}
	if !built {
		t.Fatal("no RUN of the builder builds /out/acpconform")
	}
	if output, err := exec.CommandContext(ctx, filepath.Join(out, "acpconform"), "list").CombinedOutput(); err != nil {
		t.Fatalf("the built acpconform list: %v\n%s", testbound.Err(ctx, err), output)
	}

	var copied, entrypoint string
	for _, line := range d.stages[1] {
		if rest, ok := strings.CutPrefix(line, "COPY --from=build /out/acpconform "); ok {
			copied = rest
		}
		if rest, ok := strings.CutPrefix(line, "ENTRYPOINT "); ok {
			entrypoint = rest
		}
	}
	if copied == "" || entrypoint != `["`+copied+`"]` {
		t.Errorf("the image copies the binary to %q and its ENTRYPOINT is %s, want that binary", copied, entrypoint)
	}
}
