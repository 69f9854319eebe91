package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/trace"
)

// schemaNames are the schemas acpconform publishes: the probe contract's,
// and a trace's line.
func schemaNames() []string { return append(probe.SchemaNames(), "trace") }

// schema is the schema called name.
func schema(name string) []byte {
	if name == "trace" {
		return trace.Schema()
	}
	s, _ := probe.Schema(name)
	return s
}

// schemaCommand prints the JSON Schemas of the probe contract and of a
// trace.
func (a *app) schemaCommand() *cobra.Command {
	names := strings.Join(schemaNames(), "|")
	cmd := a.command("schema ["+names+"]", "Print the JSON Schemas of the probe contract (docs/probe.md) and of a trace (docs/traces.md)", `
Prints a JSON Schema (draft 2020-12) of the probe contract that adapters
follow (docs/probe.md): request, the probe request an agent adapter receives
as prompt text (§1.3); outcome, what it reports back as an agent message
(§1.5), against which acpconform validates every outcome it receives; user,
the scripted-user instruction a client adapter finds in the _meta of each
elicitation/create (§2). Their $ids are under
`+probe.SchemaBase+`. And trace, a line of the trace
acpconform record writes (docs/traces.md).

With no name, prints one JSON object holding them all, keyed by name:
{"request": {...}, "outcome": {...}, "user": {...}, "trace": {...}}. Exits 0, 2 on a usage
error, and 6 when stdout cannot be written.`,
		func(cmd *cobra.Command, args []string) (int, error) {
			out, err := schemasText(args)
			if err == nil {
				_, err = a.stdout.Write(out)
			}
			if err != nil {
				fmt.Fprintf(a.stderr, "acpconform schema: %v\n", err)
				return exitOutput, nil
			}
			return exitOK, nil
		})
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usagef(cmd, "name one schema, or none for all")
		}
		if len(args) == 1 && !slices.Contains(schemaNames(), args[0]) {
			return usagef(cmd, "no schema is called %q (want %s)", args[0], strings.Join(schemaNames(), ", "))
		}
		return nil
	}
	cmd.ValidArgs = schemaNames()
	return cmd
}

// schemasText is the schema args names as its file holds it, or with no
// name all of them in one JSON object keyed by name.
func schemasText(args []string) ([]byte, error) {
	if len(args) == 1 {
		return schema(args[0]), nil
	}
	var all bytes.Buffer
	all.WriteString("{")
	for i, name := range schemaNames() {
		s := schema(name)
		if i > 0 {
			all.WriteString(",")
		}
		fmt.Fprintf(&all, "%q:%s", name, s)
	}
	all.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, all.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("the schemas: %w", err)
	}
	out.WriteString("\n")
	return out.Bytes(), nil
}
