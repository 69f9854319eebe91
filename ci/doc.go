// Package ci tests what ships acpconform besides its Go packages: the
// GitHub Action (action.yml at the repository root) and the workflows
// that use it, the release configuration (.goreleaser.yaml) and the
// container image (Dockerfile). It has no code of its own, only tests.
//
// It also keeps the house of the module's packages (TestLayers). From the
// top, each layer built on the ones below it:
//
//  1. cmd, and the test-only interop and ci: the commands;
//  2. scenarios and mutants: the catalogue, and the reference broken on purpose;
//  3. suite, judge and replay: subjects, the contract's registry, a run;
//     the judge of recorded sessions, whose rules the catalogue's reading
//     of the wire shares; and their replay to a new build;
//  4. mocks and kit: the scriptable peers (and the hostile subject,
//     mocks/hostile), the adapter kits, and the reference's probe adapters
//     (kit/probeagent, kit/probeclient: the kit around the reference);
//  5. reference: ask_choice and create_elicitation;
//  6. reports, probe and trace: what a run says, the probe contracts, and
//     the trace of a recorded session;
//  7. internal: the small helpers.
//
// A non-test file imports only packages of its own layer or a lower one.
//
// And it keeps the suite's cost in view: budget.txt holds what each
// package's tests may cost, in subject processes, catalogue runs and
// checks, counted by internal/testcost and judged by each package's
// TestMain (internal/testcost/budget); TestEveryPackageThatStartsProcessesHasABudget
// wants every package that can start processes to have both.
package ci
