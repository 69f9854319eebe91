package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/trace"
)

func TestSchemaCommand(t *testing.T) {
	schema := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"schema"}, args...), strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	for _, name := range schemaNames() {
		want := published(name)
		if code, out, errs := schema(name); code != exitOK || out != string(want) || errs != "" {
			t.Errorf("acpconform schema %s: exit %d, stderr %q, stdout %.80q; want the schema file", name, code, errs, out)
		}
	}
	if _, out, _ := schema("trace"); out != string(trace.Schema()) {
		t.Errorf("acpconform schema trace prints %.80q, want the trace's schema (docs/traces.md)", out)
	}
	code, out, errs := schema()
	if code != exitOK || errs != "" {
		t.Fatalf("acpconform schema: exit %d, stderr %q", code, errs)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("acpconform schema prints %.80q, not a JSON object: %v", out, err)
	}
	if len(all) != len(schemaNames()) || !strings.HasPrefix(out, "{\n  \"request\": {") {
		t.Errorf("acpconform schema prints the keys %v in %.40q, want %v in order", keys(all), out, schemaNames())
	}
	for _, name := range schemaNames() {
		want := published(name)
		if !sameJSON(all[name], want) {
			t.Errorf("acpconform schema: %q is not the %s schema", all[name], name)
		}
	}
	for _, args := range [][]string{{"outcome.json"}, {"request", "outcome"}} {
		if code, out, errs := schema(args...); code != exitUsage || out != "" || strings.Count(strings.TrimSpace(errs), "\n") > 0 || !strings.Contains(errs, "acpconform schema: ") {
			t.Errorf("acpconform schema %q: exit %d, stdout %q, stderr %q; want one line of usage error, exit 2", args, code, out, errs)
		}
	}
	if _, out, _ := schema("--help"); !strings.Contains(out, "docs/probe.md") {
		t.Errorf("acpconform schema --help does not point at docs/probe.md:\n%s", out)
	}
}

// published is the schema file called name, read where it lives.
func published(name string) []byte {
	if name == "trace" {
		return trace.Schema()
	}
	b, _ := probe.Schema(name)
	return b
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}
