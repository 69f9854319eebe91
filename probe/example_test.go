package probe_test

import (
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
