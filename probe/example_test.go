package probe_test

import (
	"encoding/json"
	"fmt"

	"github.com/acpconform/acpconform/probe"
)

// An agent adapter in Go reads each prompt's text as a probe request.
func ExampleParseRequest() {
	req, err := probe.ParseRequest(`{"acpconform":1,"op":"ask_choice","question":"Deploy where?","choices":[{"value":"preview","label":"Preview"},{"value":"production","label":"Production","default":true}]}`)
	fmt.Println(req.Question, len(req.Choices), req.Choices[1].Default, err)
	_, err = probe.ParseRequest(`{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"accepted"}}`)
	fmt.Println(err)
	// Output:
	// Deploy where? 2 true <nil>
	// probe request does not match the probe contract's request schema: at /fallback: missing "value": an accepted or plain fallback has a value (schema: request.json#/$defs/fallback/allOf/0/then/required)
}

// Integer members are read by value, as JSON Schema's "integer" reads them:
// an adapter whose JSON library writes 0.0 for index 0 is right.
func ExampleInteger() {
	for _, n := range []json.Number{"0.0", "0e5", "-0", "10e-1", "-32601.0", "0.5", "1e30"} {
		i, err := probe.Integer(n)
		fmt.Println(n, i, err)
	}
	// Output:
	// 0.0 0 <nil>
	// 0e5 0 <nil>
	// -0 0 <nil>
	// 10e-1 1 <nil>
	// -32601.0 -32601 <nil>
	// 0.5 0 0.5 is not an integer
	// 1e30 0 1e30 is out of range: acpconform reads integers from -9007199254740991 to 9007199254740991
}
