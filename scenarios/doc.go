// Package scenarios is the Ginkgo catalogue of typed-choice checks: one spec
// per check, grouped by CONTRACT area, one file per area (sch.go, val.go,
// ...). Catalogue declares it against a suite.Subject; the same specs run
// against the reference in-process, as a process over stdio, over a
// WebSocket, and against anyone's agent through the acpconform CLI.
//
// # Reading a spec
//
// Every spec carries the label sets rule:<ID>, level:<MUST or SHOULD>,
// role:<agent, client or relay> and area:<AREA>, so that
//
//	acpconform run --label-filter 'rule: containsAny TOK-2'
//
// selects by rule, and its CONTRACT IDs are also a report entry, which
// reaches the JUnit properties.
//
// # Check IDs
//
// Every check has a stable ID, RULE/slug, such as TOK-2/leading-zero:
// RULE is the first CONTRACT ID it cites, the slug kebab-case of at most
// 40 characters, unique within the rule. People put IDs in baselines and
// filters: once given, an ID does not change. Ginkgo labels may not hold
// a "/", so the ID is the label check:TOK-2:leading-zero (see
// suite.CheckLabel), which /^check:TOK-2:lead/ selects. An It takes its
// slug first (e.it("leading-zero", ...)); a table entry's is its text in
// kebab-case without a leading article, unless a slug("...") argument
// says otherwise. docs/catalogue.md lists every ID; go test ./scenarios
// -update rewrites the list.
//
// Catalogue returns the checks it declares (Checks), complete once Ginkgo
// has built its tree, so that a run can count them before any runs.
//
// # What a spec does
//
// A spec
//
//  1. connects a scripted mock client (mocks/client) to a fresh connection
//     of the subject, advertising the capabilities the check needs;
//  2. queues the client's answers to the elicitations it expects;
//  3. sends a probe request (PROBE.md §1) as the prompt;
//  4. asserts on the outcome the subject reports and on the frames it sent.
//
// Nothing waits without a bound: each wait takes the run's response
// timeout, each spec its scenario timeout. A failed spec attaches the wire
// transcript and the subject's stderr to its report. Checks that need the
// reference's Go API carry the label in-process and are skipped on other
// subjects; a skip is never a pass.
//
// # Adding a check
//
// Find the area's file, and write
//
//	e.it("label-refused", "refuses an accept of the label", rules("TOK-2"), func(ctx SpecContext) {
//		f := e.connect(ctx, formClient)
//		f.answer(script.AcceptChoice("Production"))
//		Expect(f.probe(ctx, deploy())).To(BeOutcome(invalidResponse))
//	})
//
// then make sure a mutant of the reference (package mutants) fails it.
//
// # Operations an agent may not offer
//
// An agent need not offer create_elicitation (docs/probe.md §1.9). Every
// check of role agent and area ELI starts with
//
//	e.needOffered(ctx)
//
// which skips it, reported "not offered" (neither passed nor failed),
// when the agent does not offer the op. The first call of a catalogue
// asks the agent once, on a connection of its own; the rest read what it
// learnt. fixture.probe calls it too for a create_elicitation request, and
// fails the check when an agent that offers the op answers a request of it
// as one that does not. The verdict names the operations it judged.
//
// # Failures
//
// A failure starts with one sentence that says what the subject did
// wrong, naming the step, and, where values are compared, a -want +got
// diff of the members that differ. Assert with the vocabulary of
// assert.go (must, expectEqual, expectJSON, expectNone, assert, ...) or
// BeOutcome, never with a bare Gomega matcher: package mutants fails any
// failure that shows a pointer, a type dump or matcher wording.
package scenarios
