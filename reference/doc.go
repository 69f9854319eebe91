// Package reference is the reference implementation of typed-choice
// elicitation over the Agent Client Protocol: [AskChoice] asks the connected
// client to pick one typed value and returns accepted, declined or cancelled.
//
// It is the Go counterpart of ACP Kit's ask_choice and meets every agent-side
// rule of the acpconform contract (CONTRACT.md: SCH, VAL, DEF, TOK, RES, CAP,
// FB, DEP, RTE-1..4, RTE-7). The files follow the contract's areas:
// validate.go (VAL), schema.go (SCH, DEF), answer.go (TOK, RES), fallback.go
// (FB, DEP), session.go (CAP) and conn.go (the ACP connection).
//
// # Asking
//
// Serve your [acp.Agent] with [NewAgentConnection] instead of
// acp.NewAgentSideConnection (or, when the agent keeps the connection, with
// [NewUnstartedAgentConnection], then Start), and in a prompt turn ask
// through the session:
//
//	res, err := reference.AskChoice(ctx, conn.Session(p.SessionId),
//		"Choose a deployment target",
//		[]reference.Choice[Target]{
//			{Value: Preview, Label: "Preview"},
//			{Value: Production, Label: "Production",
//				Description: "Deploy to the production environment.", Default: true},
//		})
//	if err != nil { ... }
//	switch res.Status() {
//	case reference.StatusAccepted:  // res.Value() is Preview or Production
//	case reference.StatusDeclined:
//	case reference.StatusCancelled:
//	}
//
// Values never go on the wire: the client sees tokens choice_0, choice_1, ...
// so T may be any type. The default is sent in the schema, and never turns a
// malformed, declined or cancelled answer into an acceptance.
//
// # Errors
//
// Every failure is testable with [errors.Is] or [errors.As]:
// [ErrInvalidArgument] ([*ArgumentError]), [ErrElicitationUnsupported],
// [ErrInvalidResponse] ([*ResponseError]), [ErrInvalidFallback]
// ([*FallbackError]), a [*RequestError] keeping the JSON-RPC code, message
// and data of an error answer, [ErrConnectionClosed], and the context's error.
//
// # Fallbacks
//
// Without form elicitation, AskChoice fails with ErrElicitationUnsupported
// unless given [WithFallback]; it never substitutes a permission request. The
// fallback runs only then. [WithPlainFallback] is the deprecated variant that
// returns a bare value and logs [PlainValueWarning]. [WithEqual] documents and
// replaces the rule that matches a fallback's value to the offered choices.
//
// # Low level
//
// [Session.SupportsElicitation] and [Session.CreateElicitation] remain public
// for multi-field forms, URL elicitation and any other schema shape
// (CONTRACT ELI-1..3): CreateElicitation sends only a mode the client
// advertised and refuses an accepted form whose content does not satisfy
// its schema ([ContentProblems]). [Compile] builds exactly the form AskChoice
// sends.
package reference
