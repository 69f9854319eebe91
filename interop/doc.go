// Package interop proves acpconform against code nobody on the team wrote:
// the probe adapters of ts/, on the TypeScript ACP SDK
// (@agentclientprotocol/sdk 2.4.0), and the Python agent adapter of
// python/, standard library only, checked by the mock peers, the reference
// and the acpconform CLI. Its tests install the adapters with
// npm ci from the committed lockfile when they are not installed yet.
// `go test ./interop -update` regenerates the interop matrix in README.md.
package interop
