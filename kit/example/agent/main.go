// Command agent is the Go kit's example: an ACP agent whose feature,
// ask_choice and create_elicitation (askchoice.go), is written against the
// kit's session, and whose probe adapter is this file: 15 lines of code.
// Copy it beside your own feature and rename what it calls.
//
//	go build -o example-agent ./kit/example/agent
//	acpconform agent -- ./example-agent
package main

import "github.com/acpconform/acpconform/kit"

func main() {
	kit.Main(kit.Agent{AskChoice: askChoice, CreateElicitation: createElicitation, Errors: kit.Errors{
		InvalidArgument: ErrInvalidArgument, Unsupported: ErrUnsupported, InvalidResponse: ErrInvalidResponse, InvalidFallback: ErrInvalidFallback}})
}

// askChoice runs the feature's AskChoice as the probe request says.
func askChoice(c *kit.Call) (any, error) {
	choices := kit.MapChoices(c.Choices, func(ch kit.Choice) Choice[any] { return Choice[any]{ch.Value, ch.Label, ch.Description, ch.Default} })
	opts := Options[any]{Fallback: kit.Fallback(c, Accept[any], Decline[any], Cancel[any]), PlainFallback: c.PlainFallback, Equal: c.Equal, Warn: c.Warn}
	return AskChoice(c.Context(), c.Session, c.Question, choices, opts)
}

// createElicitation runs the feature's CreateElicitation as the probe request says.
func createElicitation(c *kit.ElicitationCall) (any, error) {
	req := ElicitationRequest{Mode: c.Mode, Message: c.Message, RequestedSchema: c.RequestedSchema, URL: c.URL, ElicitationID: c.ElicitationID}
	return CreateElicitation(c.Context(), c.Session, req)
}
