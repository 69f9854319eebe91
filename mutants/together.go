package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// MutantEnv names, in the environment of a binary built by BuildTogether,
// the mutant or variant it runs as; empty or absent, it is the reference.
const MutantEnv = "ACPCONFORM_MUTANT"

// BuildTogether builds acpconform once with every mutant of ms in it,
// each chosen when the process starts by MutantEnv: a mutant's link costs
// what a build of the whole binary costs, about 2.5 CPU-seconds, and a run
// of the catalogue against it a fraction of that. It returns the binary
// and the mutants it could not hold, which Build builds apart.
//
// A mutant's edit must lie within one function: the function's mutated
// copy, renamed with the mutant's suffix, goes into a file of its own
// beside the new declarations the edit brings (the mutant's helpers),
// renamed too; the original function starts by calling the copy when its
// mutant runs, and is otherwise unchanged. Nothing of this is in the
// source tree: the build's overlay holds it, and the shipped binary never
// has it.
func BuildTogether(root, dir string, ms []Mutant) (bin string, apart []Mutant, err error) {
	byFile := map[string][]Mutant{}
	var files []string
	for _, m := range ms {
		if _, ok := byFile[m.File]; !ok {
			files = append(files, m.File)
		}
		byFile[m.File] = append(byFile[m.File], m)
	}
	sort.Strings(files)
	replace := map[string]string{}
	packages := map[string]string{} // folder of reference/ → package name
	for _, file := range files {
		orig := filepath.Join(root, "reference", filepath.FromSlash(file))
		src, err := os.ReadFile(orig)
		if err != nil {
			return "", nil, err
		}
		dispatch := map[string][]string{} // changed function → its mutants
		for _, m := range byFile[file] {
			gen, fn, pkg, err := m.copied(src)
			if err != nil {
				apart = append(apart, m)
				continue
			}
			packages[path.Dir(file)] = pkg
			name := filepath.Join(dir, "zz_mutant_"+suffix(m.Name)+".go")
			if err := os.WriteFile(name, gen, 0o644); err != nil {
				return "", nil, err
			}
			replace[filepath.Join(filepath.Dir(orig), "zz_mutant_"+suffix(m.Name)+".go")] = name
			dispatch[fn] = append(dispatch[fn], m.Name)
		}
		withDispatch, err := dispatched(src, dispatch)
		if err != nil {
			return "", nil, fmt.Errorf("reference/%s: %w", file, err)
		}
		name := filepath.Join(dir, "dispatch-"+strings.ReplaceAll(file, "/", "-"))
		if err := os.WriteFile(name, withDispatch, 0o644); err != nil {
			return "", nil, err
		}
		replace[orig] = name
	}
	for folder, pkg := range packages {
		name := filepath.Join(dir, "zz_mutant-"+strings.ReplaceAll(folder, "/", "-")+".go")
		src := fmt.Sprintf("package %s\n\nimport \"os\"\n\n// activeMutant is the mutant this process runs as (%s).\nvar activeMutant = os.Getenv(%q)\n", pkg, MutantEnv, MutantEnv)
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			return "", nil, err
		}
		replace[filepath.Join(root, "reference", filepath.FromSlash(folder), "zz_mutant.go")] = name
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", nil, err
	}
	overlayPath := filepath.Join(dir, "together.overlay.json")
	if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
		return "", nil, err
	}
	bin, err = build(root, overlayPath, filepath.Join(dir, "acpconform"))
	return bin, apart, err
}

// suffix is what a mutant's renamed declarations end with.
func suffix(name string) string { return "mutant_" + strings.ReplaceAll(name, "-", "_") }

// copied returns the file that holds m's mutated function and the
// declarations its edit adds, each renamed with m's suffix; the key of the
// function (see funcKey); and the package's name. It fails unless the
// edit changes exactly one function and adds only declarations.
func (m Mutant) copied(src []byte) (gen []byte, fn, pkg string, err error) {
	mutated, err := m.mutate(src)
	if err != nil {
		return nil, "", "", err
	}
	fset := token.NewFileSet()
	before, err := parser.ParseFile(fset, "before.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, "", "", err
	}
	after, err := parser.ParseFile(fset, "after.go", mutated, parser.SkipObjectResolution)
	if err != nil {
		return nil, "", "", err
	}
	old := map[string]string{}
	for _, d := range before.Decls {
		for _, k := range declKeys(d) {
			old[k] = nodeText(fset, src, d)
		}
	}
	var changed *ast.FuncDecl
	var added []ast.Decl
	renamed := map[string]bool{}
	for _, d := range after.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		keys := declKeys(d)
		text := nodeText(fset, mutated, d)
		switch prev, ok := old[keys[0]]; {
		case ok && prev == text:
		case ok:
			f, isFunc := d.(*ast.FuncDecl)
			if !isFunc || changed != nil {
				return nil, "", "", fmt.Errorf("mutant %s changes more than one function", m.Name)
			}
			changed = f
			if f.Recv == nil {
				renamed[f.Name.Name] = true
			}
		default:
			added = append(added, d)
			for _, k := range keys {
				renamed[strings.TrimPrefix(k, "func ")] = true
			}
		}
	}
	if changed == nil {
		return nil, "", "", fmt.Errorf("mutant %s changes no function", m.Name)
	}
	fn = funcKey(changed)
	end := "__" + suffix(m.Name)
	changed.Name.Name += end // a method is renamed alone: its calls name other things too
	decls := append([]ast.Decl{changed}, added...)
	for _, d := range decls {
		ast.Inspect(d, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				ast.Inspect(n.X, func(x ast.Node) bool { return rename(x, renamed, end) })
				return false // n.Sel names a field or a method: never one of ours
			default:
				return rename(n, renamed, end)
			}
		})
	}
	var body bytes.Buffer
	for _, d := range decls {
		body.WriteString("\n")
		if err := printer.Fprint(&body, fset, d); err != nil {
			return nil, "", "", err
		}
		body.WriteString("\n")
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "package %s\n\n", after.Name.Name)
	for _, imp := range after.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if strings.Contains(body.String(), name+".") {
			if imp.Name != nil {
				fmt.Fprintf(&out, "import %s %s\n", imp.Name.Name, imp.Path.Value)
			} else {
				fmt.Fprintf(&out, "import %s\n", imp.Path.Value)
			}
		}
	}
	out.Write(body.Bytes())
	return out.Bytes(), fn, after.Name.Name, nil
}

// rename appends end to an identifier in names; it reports whether to look
// inside n.
func rename(n ast.Node, names map[string]bool, end string) bool {
	if id, ok := n.(*ast.Ident); ok && names[id.Name] {
		id.Name += end
	}
	return true
}

// mutate is src with m's edit, its imports and its helpers: the file Apply
// writes, and the one BuildTogether takes the mutated function from.
func (m Mutant) mutate(src []byte) ([]byte, error) {
	if n := strings.Count(string(src), m.From); n != 1 {
		return nil, fmt.Errorf("mutant %s: its text occurs %d times in reference/%s, want once: the reference changed, update the mutant", m.Name, n, m.File)
	}
	mutated := strings.Replace(string(src), m.From, m.To, 1)
	mutated = withImports(mutated, m.To+helpers[m.Name])
	return []byte(mutated + helpers[m.Name]), nil
}

// declKeys names what a top-level declaration declares: "func F", "func
// (T) M", or the names of a var, const or type declaration.
func declKeys(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return []string{funcKey(d)}
	case *ast.GenDecl:
		var keys []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				for _, n := range s.Names {
					keys = append(keys, n.Name)
				}
			case *ast.TypeSpec:
				keys = append(keys, s.Name.Name)
			}
		}
		if len(keys) == 0 {
			keys = []string{"?"}
		}
		return keys
	}
	return []string{"?"}
}

// funcKey is "func F" or "func (T) M".
func funcKey(f *ast.FuncDecl) string {
	if f.Recv == nil || len(f.Recv.List) == 0 {
		return "func " + f.Name.Name
	}
	t := f.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if ix, ok := t.(*ast.IndexListExpr); ok {
		t = ix.X
	}
	return "func (" + fmt.Sprint(t) + ") " + f.Name.Name
}

func nodeText(fset *token.FileSet, src []byte, n ast.Node) string {
	return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
}

// dispatched is src whose functions named in dispatch start by calling
// the copy of the mutant that runs, if one of theirs does. Unnamed
// receivers and parameters get names, so that they can be passed on.
func dispatched(src []byte, dispatch map[string][]string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "f.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	type edit struct {
		at   int
		cut  int // bytes of src replaced at at
		text string
	}
	var edits []edit
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || len(dispatch[funcKey(fn)]) == 0 {
			continue
		}
		// name names a receiver or parameter field: its names, given
		// where it has none or only _.
		n := 0
		name := func(field *ast.Field) []string {
			var names []string
			if len(field.Names) == 0 {
				n++
				given := fmt.Sprintf("mutantArg%d", n)
				edits = append(edits, edit{at: off(field.Type.Pos()), text: given + " "})
				return []string{given}
			}
			for _, id := range field.Names {
				if id.Name == "_" {
					n++
					given := fmt.Sprintf("mutantArg%d", n)
					edits = append(edits, edit{at: off(id.Pos()), cut: 1, text: given})
					names = append(names, given)
					continue
				}
				names = append(names, id.Name)
			}
			return names
		}
		callee := ""
		if fn.Recv != nil && len(fn.Recv.List) > 0 {
			callee = name(fn.Recv.List[0])[0] + "."
		}
		var args []string
		for i, field := range fn.Type.Params.List {
			names := name(field)
			if _, variadic := field.Type.(*ast.Ellipsis); variadic && i == len(fn.Type.Params.List)-1 {
				names[len(names)-1] += "..."
			}
			args = append(args, names...)
		}
		typeArgs := ""
		if fn.Type.TypeParams != nil {
			var ts []string
			for _, field := range fn.Type.TypeParams.List {
				for _, id := range field.Names {
					ts = append(ts, id.Name)
				}
			}
			typeArgs = "[" + strings.Join(ts, ", ") + "]"
		}
		var b strings.Builder
		b.WriteString("\n\tswitch activeMutant {")
		names := slices.Clone(dispatch[funcKey(fn)])
		sort.Strings(names)
		for _, m := range names {
			call := fmt.Sprintf("%s%s__%s%s(%s)", callee, fn.Name.Name, suffix(m), typeArgs, strings.Join(args, ", "))
			if fn.Type.Results == nil || len(fn.Type.Results.List) == 0 {
				fmt.Fprintf(&b, "\n\tcase %q:\n\t\t%s\n\t\treturn", m, call)
			} else {
				fmt.Fprintf(&b, "\n\tcase %q:\n\t\treturn %s", m, call)
			}
		}
		b.WriteString("\n\t}\n\t")
		edits = append(edits, edit{at: off(fn.Body.Lbrace) + 1, text: b.String()})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].at > edits[j].at })
	out := slices.Clone(src)
	for _, e := range edits {
		out = slices.Concat(out[:e.at], []byte(e.text), out[e.at+e.cut:])
	}
	return out, nil
}
