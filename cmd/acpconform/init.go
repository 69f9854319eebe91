package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/acpconform/acpconform/internal/version"
	"github.com/acpconform/acpconform/kit"
)

// A starter is what `acpconform init ROLE --lang LANG` writes: an adapter on
// the language's kit, the feature left to write, and CI that runs the
// catalogue against it. Its files come from kit.Sources: the kit's own
// files (the ones CI checks) and the templates of kit/starters.
type starter struct {
	role, lang string
	command    string // the subject's command line, for acpconform ROLE -- COMMAND
	setup      string // the command that prepares the folder once ("npm install"), or ""
	build      string // the command that builds the subject before each run, or ""
	image      string // the container image of the GitLab job
	files      []starterFile
}

// A starterFile is one file of a starter: name, from its source in
// kit.Sources (a *.tmpl rendered with initVars), and what it is for the
// starter's README.
type starterFile struct {
	name, from, about string
}

// next are the commands to run in the starter's folder, in order: the
// one that prepares it, when it needs preparing; one check with -v, which
// shows the whole exchange of the first thing to make pass; the catalogue.
func (s starter) next() []string {
	first := map[string]string{"agent": "SCH-1/one-form-scoped-to-session", "client": "CLI-2/accept-the-second-option"}[s.role]
	check := fmt.Sprintf("acpconform %s --check %s -v -- %s", s.role, first, s.command)
	all := fmt.Sprintf("acpconform %s -- %s", s.role, s.command)
	if s.build != "" {
		check, all = s.build+" && "+check, s.build+" && "+all
	}
	if s.setup != "" {
		return []string{s.setup, check, all}
	}
	return []string{check, all}
}

// ciSetup is what CI runs before acpconform.
func (s starter) ciSetup() string {
	return strings.Join(slices.DeleteFunc([]string{s.setup, s.build}, func(c string) bool { return c == "" }), " && ")
}

// tsKit is the TypeScript kit, copied into a starter as a local package.
var tsKit = []starterFile{
	{"acpconform-kit/package.json", "ts/package.json", ""},
	{"acpconform-kit/README.md", "ts/README.md", ""},
	{"acpconform-kit/index.mjs", "ts/index.mjs", ""},
	{"acpconform-kit/agent.mjs", "ts/agent.mjs", ""},
	{"acpconform-kit/client.mjs", "ts/client.mjs", ""},
	{"acpconform-kit/json.mjs", "ts/json.mjs", ""},
	{"acpconform-kit/content.mjs", "ts/content.mjs", ""},
	{"acpconform-kit/probe.mjs", "ts/probe.mjs", ""},
	{"acpconform-kit/example/agent.mjs", "ts/example/agent.mjs", ""},
	{"acpconform-kit/example/askChoice.mjs", "ts/example/askChoice.mjs", ""},
	{"acpconform-kit/example/client.mjs", "ts/example/client.mjs", ""},
}

// ciFiles are every starter's CI and README.
var ciFiles = []starterFile{
	{".github/workflows/acpconform.yml", "", "GitHub Actions: runs acpconform on every push and pull request"},
	{".gitlab-ci.yml", "", "GitLab CI: the same, junit.xml as the pipeline's test report"},
	{"README.md", "", "this page"},
}

// starters are init's starters, by role/lang.
var starters = map[string]starter{
	"agent/ts": {role: "agent", lang: "ts", command: "node agent.mjs", setup: "npm install", image: "node:20",
		files: slices.Concat([]starterFile{
			{"agent.mjs", "ts/example/agent.mjs", "the adapter: your askChoice and createElicitation handed to acpconform-kit"},
			{"askChoice.mjs", "starters/ts/askChoice.mjs", "your feature, to write: until then every check fails saying so"},
			{"package.json", "starters/ts/package.json.tmpl", "the SDK (@agentclientprotocol/sdk 2.4.0) and the kit"},
			{".npmrc", "starters/ts/npmrc", "install-links: the kit is installed as a copy, so that it and your code share one SDK"},
			{".gitignore", "starters/ts/gitignore", ""},
			{"acpconform-kit/", "", "acpconform-kit, the probe adapter around your feature (its README says how it works)"},
		}, tsKit, ciFiles)},
	"client/ts": {role: "client", lang: "ts", command: "node client.mjs", setup: "npm install", image: "node:20",
		files: slices.Concat([]starterFile{
			{"client.mjs", "ts/example/client.mjs", "a client in test mode: acpconform-kit's answerAsInstructed in its elicitation/create handler; graft that handler into your client"},
			{"package.json", "starters/ts/package.json.tmpl", "the SDK (@agentclientprotocol/sdk 2.4.0) and the kit"},
			{".npmrc", "starters/ts/npmrc", "install-links: the kit is installed as a copy, so that it and your code share one SDK"},
			{".gitignore", "starters/ts/gitignore", ""},
			{"acpconform-kit/", "", "acpconform-kit: the test mode's answers (its README says how it works)"},
		}, tsKit, ciFiles)},
}

// pyKit is the Python kit, one module beside the adapter.
var pyKit = []starterFile{
	{"acpconform_kit.py", "python/acpconform_kit.py", "acpconform_kit, the probe adapter around your feature (standard library only)"},
	{"acpconform_kit.md", "python/README.md", "acpconform_kit's README"},
}

func init() {
	starters["agent/go"] = starter{role: "agent", lang: "go", command: "./agent", setup: "go mod tidy", build: "go build -o agent .", image: "golang:1.25",
		files: slices.Concat([]starterFile{
			{"main.go", "example/agent/main.go", "the adapter: your AskChoice and CreateElicitation handed to the kit (github.com/acpconform/acpconform/kit)"},
			{"askchoice.go", "starters/go/askchoice.go.txt", "your feature, to write: until then every check fails saying so"},
			{"go.mod", "starters/go/go.mod.tmpl", "the module, requiring acpconform's kit"},
			{".gitignore", "starters/go/gitignore.tmpl", ""},
		}, ciFiles)}
	starters["client/go"] = starter{role: "client", lang: "go", command: "./client", setup: "go mod tidy", build: "go build -o client .", image: "golang:1.25",
		files: slices.Concat([]starterFile{
			{"main.go", "example/client/main.go", "a client in test mode: the kit's ScriptedAnswer in its elicitation/create handler; graft that handler into your client"},
			{"go.mod", "starters/go/go.mod.tmpl", "the module, requiring acpconform's kit"},
			{".gitignore", "starters/go/gitignore.tmpl", ""},
		}, ciFiles)}
	starters["agent/python"] = starter{role: "agent", lang: "python", command: "python3 agent.py", image: "python:3.12",
		files: slices.Concat([]starterFile{
			{"agent.py", "python/example/agent.py", "the adapter: your ask_choice and create_elicitation handed to acpconform_kit"},
			{"askchoice.py", "starters/python/askchoice.py", "your feature, to write: until then every check fails saying so"},
			{".gitignore", "starters/python/gitignore", ""},
		}, pyKit, ciFiles)}
	starters["client/python"] = starter{role: "client", lang: "python", command: "python3 client.py", image: "python:3.12",
		files: slices.Concat([]starterFile{
			{"client.py", "python/example/client.py", "a client in test mode: acpconform_kit's answer_in_test_mode in its elicitation/create handler; graft that into your client"},
			{".gitignore", "starters/python/gitignore", ""},
		}, pyKit, ciFiles)}
}

// starterLangs are the languages init writes, by --lang value.
var starterLangs = []string{"go", "ts", "python"}

// initVars fill the templates.
type initVars struct {
	Name    string // the starter's package name, from its folder's
	Role    string // agent or client
	Lang    string // go, ts or python
	Command string
	Setup   string
	Image   string
	Install string // what `go install` installs: module@version
	Action  string // the action's ref in uses:
	// ModVersion is the version a Go starter's go.mod requires.
	ModVersion string
	// Pin names what the files are pinned to and why: "v1.2.0, the
	// acpconform that wrote this file", "commit 1a2b…, chosen with --pin".
	Pin string
	// Unpinned says, when not "", what could not be pinned and why: the
	// CI files and the README say it where a branch stands in for a pin.
	Unpinned string
	// Changed says, when not "", that the binary was built from changed
	// files its commit lacks.
	Changed string
	Files   []struct{ Name, About string }
	Next    []string
}

func (a *app) initCommand() *cobra.Command {
	var lang, pin string
	c := a.command("init agent|client --lang go|ts|python [DIR]",
		"Write a starter adapter on a kit, with CI, and say how to run it",
		`
init writes into DIR (the current folder by default) a starter for checking
your agent or client: the adapter on the kit of your language, the feature
file left for you to write, a GitHub Actions workflow and a GitLab CI job
that run acpconform against it, and a README. It writes nothing when any of
those files is there already, and names them.

The CI files, and a Go starter's go.mod, name the acpconform that wrote
them: its release, or the commit it was built from. --pin names another, a
release tag or a full commit SHA. A build that knows neither (a git
worktree, -buildvcs=false) writes main, a branch, and says so in each file.

It ends by printing the commands to run next: the one that prepares the
folder (npm install, go mod tidy), one check with -v, and the catalogue. An agent's starter fails every check,
saying the feature is not written, until you write it.`,
		func(cmd *cobra.Command, args []string) (int, error) {
			if len(args) < 1 || len(args) > 2 {
				return exitUsage, usagef(cmd, "name the role, agent or client, and at most one folder")
			}
			role := args[0]
			if role != "agent" && role != "client" {
				return exitUsage, usagef(cmd, "the role is agent or client, not %q", role)
			}
			s, ok := starters[role+"/"+lang]
			if !ok {
				return exitUsage, usagef(cmd, "--lang is one of %s, not %q", strings.Join(starterLangs, ", "), lang)
			}
			dir := "."
			if len(args) == 2 {
				dir = args[1]
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			refs, err := pinTo(version.Current(), pin)
			if err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			files, err := s.render(packageName(filepath.Base(abs)), refs)
			if err != nil {
				return exitUsage, fmt.Errorf("the %s starter does not render: %w", role+"/"+lang, err) // our bug, said plainly
			}
			if err := writeStarter(dir, files); err != nil {
				return exitUsage, usagef(cmd, "%v", err)
			}
			fmt.Fprintf(a.stdout, "acpconform init: wrote %s %s starter in %s into %s (%d files).\n", article(role), role, langName[lang], dir, len(files))
			next := s.next()
			fmt.Fprintf(a.stdout, "Next, in %s:\n  %s\n", dir, strings.Join(next, "\n  "))
			return exitOK, nil
		})
	c.Flags().StringVar(&pin, "pin", "", "the acpconform the starter's CI installs and a Go starter requires: a release tag (v1.2.0) or a full commit SHA; by default this binary's")
	c.Flags().StringVar(&lang, "lang", "", "the language of the starter: go, ts (TypeScript on @agentclientprotocol/sdk 2.4.0) or python (standard library)")
	return c
}

var langName = map[string]string{"go": "Go", "ts": "TypeScript", "python": "Python"}

// packageName makes a folder's name a package name npm and Go take.
func packageName(folder string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(folder) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case b.Len() > 0:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-_")
	if name == "" {
		return "my-acp-subject"
	}
	return name
}

// render makes the starter's files.
func (s starter) render(name string, refs initVars) (map[string][]byte, error) {
	vars := refs
	vars.Name, vars.Role, vars.Lang = name, s.role, s.lang
	vars.Command, vars.Setup, vars.Image, vars.Next = s.command, s.ciSetup(), s.image, s.next()
	for _, f := range s.files {
		if f.about != "" {
			vars.Files = append(vars.Files, struct{ Name, About string }{f.name, f.about})
		}
	}
	out := map[string][]byte{}
	for _, f := range s.files {
		var text []byte
		switch {
		case strings.HasSuffix(f.name, "/"): // a folder, for the README only
			continue
		case f.name == ".github/workflows/acpconform.yml":
			text = []byte(githubWorkflow)
		case f.name == ".gitlab-ci.yml":
			text = []byte(gitlabJob)
		case f.name == "README.md":
			readme, err := fs.ReadFile(kit.Sources, "starters/README.md.tmpl")
			if err != nil {
				return nil, err
			}
			text = readme
		default:
			src, err := fs.ReadFile(kit.Sources, f.from)
			if err != nil {
				return nil, err
			}
			if strings.HasPrefix(f.from, "python/example/") {
				src = besideTheKit(src)
			}
			if !strings.HasSuffix(f.from, ".tmpl") {
				out[f.name] = src
				continue
			}
			text = src
		}
		t, err := template.New(f.name).Delims("[[", "]]").Option("missingkey=error").Parse(string(text))
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, vars); err != nil {
			return nil, err
		}
		out[f.name] = b.Bytes()
	}
	return out, nil
}

// writeStarter writes files into dir, creating it, unless one of them
// exists or a folder on the way to one is a symbolic link: then it writes
// nothing and says which. A link inside the folder (.github pointing
// elsewhere, say) would have a file written where nobody asked for one.
func writeStarter(dir string, files map[string][]byte) error {
	var there []string
	for name := range files {
		if link := linkOnTheWay(dir, name); link != "" {
			return fmt.Errorf("%s is a symbolic link: init writes nothing through one; run it in an empty folder", filepath.Join(dir, link))
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			there = append(there, name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if len(there) > 0 {
		slices.Sort(there)
		if len(there) > 3 {
			there = append(there[:3], fmt.Sprintf("%d more of its files", len(there)-3))
		}
		return fmt.Errorf("%s already has %s: init writes nothing over your files; run it in an empty folder", dir, strings.Join(there, ", "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Within dir through os.Root: a link made after the check above still
	// cannot take a file out of the folder.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if bytes.HasPrefix(files[name], []byte("#!")) {
			mode = 0o755
		}
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode) // O_EXCL: never through a link either
		if err != nil {
			return err
		}
		_, err = f.Write(files[name])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// linkOnTheWay returns the first of name's folders, or name itself, under
// dir that is a symbolic link, as a path under dir; "" when none is.
func linkOnTheWay(dir, name string) string {
	parts := strings.Split(filepath.ToSlash(name), "/")
	for i := range parts {
		rel := filepath.Join(parts[:i+1]...)
		info, err := os.Lstat(filepath.Join(dir, rel))
		if err != nil {
			return "" // what does not exist yet is made a folder or a file, no link
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return rel
		}
	}
	return ""
}

// pinTo says which acpconform a starter's CI installs and a Go starter's
// go.mod requires: ref when given (a release tag or a full commit SHA),
// else the build b's release, else its commit; main, a branch, only when b
// knows neither, with a sentence that says so.
func pinTo(b version.Build, ref string) (initVars, error) {
	const install = "github.com/acpconform/acpconform/cmd/acpconform@"
	all := func(v, pin string) initVars {
		return initVars{Install: install + v, Action: v, ModVersion: v, Pin: pin}
	}
	switch {
	case ref != "" && fullSHA.MatchString(ref):
		// go mod tidy turns a commit in go.mod into its pseudo-version.
		return all(ref, "commit "+ref+", chosen with --pin"), nil
	case ref != "" && semver.Canonical(ref) == ref && !module.IsPseudoVersion(ref):
		return all(ref, ref+", chosen with --pin"), nil
	case ref != "":
		return initVars{}, fmt.Errorf("--pin is a release tag (v1.2.0) or a full commit SHA (40 hex digits), not %q", ref)
	case b.Version != "devel":
		return all(b.Version, b.Version+wrote), nil
	}
	var v initVars
	switch {
	case fullSHA.MatchString(b.Commit):
		v = all(b.Commit, "commit "+b.Commit+wrote)
	case b.Pseudo != "": // go install @COMMIT: 12 digits, and uses: takes all 40
		v = all(b.Pseudo, b.Pseudo+wrote)
		v.Action = "main"
		v.Unpinned = "the action runs main, a branch, which moves. This acpconform knows 12 digits of its commit, and uses: takes all 40: pin it with acpconform init --pin SHA"
	default:
		v = all("main", "main")
		v.Unpinned = "main is a branch, which moves. This acpconform was built without a commit to name (in a git worktree, or with -buildvcs=false): pin one with acpconform init --pin TAG|SHA"
	}
	if b.Pseudo != "" {
		v.Install, v.ModVersion = install+b.Pseudo, b.Pseudo
	}
	if b.Modified {
		v.Changed = "the acpconform that wrote these files was built with changes its commit lacks: CI runs the commit"
	}
	return v, nil
}

const wrote = ", the acpconform that wrote this file"

// fullSHA is a full git commit name, the only kind uses: takes.
var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// article is "a" or "an" for role.
func article(role string) string {
	if role == "agent" {
		return "an"
	}
	return "a"
}

// besideTheKit drops the lines by which a Python example of the kit finds
// acpconform_kit.py one folder up: in a starter it is beside the adapter,
// where Python looks first.
func besideTheKit(src []byte) []byte {
	var out []string
	for _, line := range strings.SplitAfter(string(src), "\n") {
		if strings.HasPrefix(line, "import os, sys") || strings.HasPrefix(line, "sys.path.insert(") {
			continue
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, ""))
}
