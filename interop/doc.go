// Package interop proves acpconform against code nobody on the team wrote:
// probe adapters on the TypeScript ACP SDK (@agentclientprotocol/sdk
// 2.4.0), the TypeScript kit's example agent (kit/ts/example) and the
// client and relay of ts/, checked by the mock peers, the reference and
// the acpconform CLI; the Python kit's example agent
// (kit/python/example), on Python's standard library alone; acpx 0.19.1
// (acpx/), its CLI and a form host on its runtime library, as clients; and
// @thinkwell/conductor 0.5.7 (conductor/) behind a stdio host, as a relay;
// and a client adapter on Zed's SDK, @zed-industries/agent-client-protocol
// 0.4.5 (zed/), which has no elicitation. Its tests install each node
// folder, kit/ts among them, with npm ci from its committed lockfile when
// it is not installed yet. `go test ./interop -update` regenerates the
// interop matrix in README.md and docs/interop.md.
package interop
