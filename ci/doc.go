// Package ci tests what ships acpconform besides its Go packages: the
// GitHub Action (action.yml at the repository root) and the workflows
// that use it, the release configuration (.goreleaser.yaml) and the
// container image (Dockerfile). It has no code of its own, only tests.
package ci
