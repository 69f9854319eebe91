package kit

import "embed"

// Sources holds what `acpconform init` writes into a starter: the kits'
// own files (the TypeScript package, the Python module, the example
// adapters), so that a starter runs the very code this repository's CI
// checks, and in starters/ the files of a starter that no kit has (its
// feature left to write, its package manifest), templates where named
// *.tmpl.
//
//go:embed ts/package.json ts/README.md ts/*.mjs ts/example/*.mjs
//go:embed python/acpconform_kit.py python/README.md python/example/agent.py python/example/client.py
//go:embed example/agent/main.go example/client/main.go README.md
//go:embed all:starters
var Sources embed.FS
