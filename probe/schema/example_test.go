package schema_test

import (
	"fmt"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/probe/schema"
)

// An adapter's tests can check its outcomes as the harness will.
func ExampleValidate() {
	fmt.Println(schema.Validate(probe.SchemaOutcome, []byte(`{"acpconform":1,"outcome":"accepted","index":1,"value":"production"}`)))
	fmt.Println(schema.Validate(probe.SchemaOutcome, []byte(`{"acpconform":1,"outcome":"accepted","index":"1","value":"production"}`)))
	// Output:
	// <nil>
	// outcome does not match the probe contract's outcome schema: at /index: want integer, got string ("1") (schema: outcome.json#/properties/index/type)
}

func ExampleParseOutcome() {
	out, err := schema.ParseOutcome(`{"acpconform":1,"outcome":"error","error":"request_error","code":-32601,"message":"Method not found","data":{"method":"elicitation/create"}}`)
	fmt.Println(out.Error, *out.Code, string(out.Data), err)
	// Output:
	// request_error -32601 {"method":"elicitation/create"} <nil>
}
