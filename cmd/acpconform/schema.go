package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/probe"
)

// schemaCommand prints the probe contract's JSON Schemas.
func (a *app) schemaCommand() *cobra.Command {
	names := strings.Join(probe.SchemaNames(), "|")
	cmd := a.command("schema ["+names+"]", "Print the JSON Schemas of the probe contract (docs/probe.md)", `
Prints a JSON Schema (draft 2020-12) of the probe contract that adapters
follow (docs/probe.md): request, the probe request an agent adapter receives
as prompt text (§1.3); outcome, what it reports back as an agent message
(§1.5), against which acpconform validates every outcome it receives; user,
the scripted-user instruction a client adapter finds in the _meta of each
elicitation/create (§2). Their $ids are under
`+probe.SchemaBase+`.

With no name, prints one JSON object holding all three, keyed by name:
{"request": {...}, "outcome": {...}, "user": {...}}. Exits 0, 2 on a usage
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
		if len(args) == 1 && !slices.Contains(probe.SchemaNames(), args[0]) {
			return usagef(cmd, "no schema is called %q (want %s)", args[0], strings.Join(probe.SchemaNames(), ", "))
		}
		return nil
	}
	cmd.ValidArgs = probe.SchemaNames()
	return cmd
}

// schemasText is the schema args names as its file holds it, or with no
// name all of them in one JSON object keyed by name.
func schemasText(args []string) ([]byte, error) {
	if len(args) == 1 {
		s, _ := probe.Schema(args[0])
		return s, nil
	}
	var all bytes.Buffer
	all.WriteString("{")
	for i, name := range probe.SchemaNames() {
		s, _ := probe.Schema(name)
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
