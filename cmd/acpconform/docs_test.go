package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acpconform/acpconform/internal/docblocks"
)

// TestDocs runs every command that README.md and docs/**/*.md show in a
// ```sh or ```console block, each block as a testscript script in a copy
// of the repository, with acpconform on the PATH as the binary the other
// tests run (binaries): a change that makes a document false fails here.
// The convention is in docs/README.md.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documents' commands")
	}
	t.Parallel()
	// Not this test binary: built with -race, it runs a catalogue about
	// eight times slower, and the documents' commands are checked for
	// what they print, not for data races (TestHostileRaceFreeRelayRun).
	bin, _ := binaries(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"README.md"}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			docs = append(docs, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	scripts := t.TempDir()
	var files []string
	for _, doc := range docs {
		src, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docblocks.Parse(doc, src)
		if err != nil {
			t.Error(err)
		}
		for _, b := range blocks {
			if b.NotRun != "" {
				continue
			}
			name := filepath.Join(scripts, fmt.Sprintf("%s_%d.txtar", strings.NewReplacer("/", "_", ".md", "").Replace(doc), b.Line))
			if err := os.WriteFile(name, blockScript(doc, b), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, name)
		}
	}
	if len(files) == 0 {
		t.Fatal("no document has a block to run")
	}
	goEnv := goEnvironment(t)
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			// go install puts binaries here, not in a reader's GOPATH.
			env.Setenv("GOPATH", filepath.Join(env.WorkDir, ".gopath"))
			env.Setenv("PATH", filepath.Dir(bin)+string(filepath.ListSeparator)+env.Getenv("PATH"))
			// The work directory is the repository, as a reader's clone
			// is, so that ./cmd/... and docs/examples/... are where the
			// documents say; what the commands write stays in it.
			return copyTree(root, env.WorkDir)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"doc": docCommand},
	})
}

// TestDocsExamplesAreShown checks that each script in docs/examples is
// one that docs/scripts.md shows, whole, so that the page and the files
// its commands run cannot drift apart.
func TestDocsExamplesAreShown(t *testing.T) {
	page, err := os.ReadFile("../../docs/scripts.md")
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Glob("../../docs/examples/*.yaml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no docs/examples/*.yaml (%v)", err)
	}
	for _, name := range examples {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), "```yaml\n"+string(data)+"```\n") {
			t.Errorf("%s is not a yaml block of docs/scripts.md, whole", name)
		}
	}
}

// blockScript is the testscript of one block: a doc command per command,
// its text and shown output as files of the archive.
func blockScript(doc string, b docblocks.Block) []byte {
	var ar txtar.Archive
	ar.Comment = fmt.Appendf(nil, "# %s:%d\n", doc, b.Line)
	for i, c := range b.Commands {
		cmdFile := fmt.Sprintf("doc.cmd/%d.sh", i)
		ar.Files = append(ar.Files, txtar.File{Name: cmdFile, Data: []byte(c.Text + "\n")})
		line := fmt.Sprintf("doc %s:%d %d %s", doc, c.Line, c.Exit, cmdFile)
		if b.Lang == "console" {
			wantFile := fmt.Sprintf("doc.cmd/%d.want", i)
			ar.Files = append(ar.Files, txtar.File{Name: wantFile, Data: []byte(c.Want)})
			line += " " + wantFile
		}
		ar.Comment = append(ar.Comment, line+"\n"...)
	}
	return txtar.Format(&ar)
}

// shellState runs a document's command in bash with the exported
// variables and the directory that the block's earlier commands left,
// so that `export PATH=...` or `cd` on one line holds for the next, and
// saves them again; stderr goes where stdout goes, as on a terminal.
const shellState = `exec 2>&1
doc_command=$1
if [ -f "$WORK/doc.cmd/state" ]; then . "$WORK/doc.cmd/state"; fi
. "$doc_command"
doc_status=$?
{ export -p; printf 'cd %q\n' "$PWD"; } > "$WORK/doc.cmd/state"
exit $doc_status
`

// docCommand is the script command `doc WHERE EXIT CMDFILE [WANTFILE]`:
// it runs CMDFILE's command in bash and fails unless it exits with EXIT
// and, given WANTFILE, prints what it shows (docblocks.Match).
func docCommand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: doc WHERE EXIT CMDFILE [WANTFILE]")
	}
	where, cmdFile := args[0], ts.MkAbs(args[2])
	wantExit, err := strconv.Atoi(args[1])
	ts.Check(err)
	cmd := strings.TrimSpace(ts.ReadFile(args[2]))
	err = ts.Exec("bash", "-c", shellState, "bash", cmdFile)
	status := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		status = exitErr.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %s: %v", where, cmd, err)
	}
	if status != wantExit {
		ts.Fatalf("%s: %s: exit status %d, the document says %d (a non-zero status is stated as `# exits N`)", where, cmd, status, wantExit)
	}
	if len(args) == 4 {
		if err := docblocks.Match(ts.ReadFile(args[3]), ts.ReadFile("stdout")); err != nil {
			ts.Fatalf("%s: %s: the output is not what the document shows: %v", where, cmd, err)
		}
	}
}

// goEnvironment is what the go command needs inside a script, whose HOME
// is no home: this machine's caches, proxy and flags. -trimpath keeps
// the build cache's entries independent of the copy's directory, so that
// `go run ./cmd/acpconform` in a script reuses what other builds made.
func goEnvironment(t *testing.T) map[string]string {
	t.Helper()
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GOFLAGS", "GOTOOLCHAIN"}
	out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	env := map[string]string{"GOENV": "off"}
	for i, k := range keys {
		if i < len(vals) && vals[i] != "" {
			env[k] = vals[i]
		}
	}
	env["GOFLAGS"] = strings.TrimSpace(env["GOFLAGS"] + " -trimpath")
	for _, k := range []string{"ACPCONFORM_REQUIRE_TOOLS", "LANG", "TERM"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	return env
}

// copyTree copies the repository at root into dir, without what git
// ignores of it (node_modules, reports, binaries) or .git itself.
func copyTree(root, dir string) error {
	skip := map[string]bool{".git": true, "node_modules": true, "acpconform-reports": true, "dist": true}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip[d.Name()] && path != root {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		to := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, info.Mode().Perm())
	})
}
