module github.com/acpconform/acpconform

go 1.25.0

require github.com/coder/acp-go-sdk v0.13.0
