# The acpconform CLI alone, on a base with CA certificates and no shell:
#   docker build -t acpconform .
#   docker run --rm acpconform agent --url wss://agent.example/acp/ws
# It holds no subject to start: check served agents (--url) and clients
# that connect (--listen), serve the reference, or copy the binary into an
# image of your agent:  COPY --from=acpconform /usr/local/bin/acpconform /usr/local/bin/
#
# The builder's tag is go.mod's go line (a test in ci/ keeps them equal).
FROM golang:1.25.0 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# No VCS stamp: the build context has no .git (.dockerignore), so the
# binary reports its version as "devel".
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -o /out/acpconform ./cmd/acpconform

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/acpconform /usr/local/bin/acpconform
# A folder the nonroot user may write its reports to.
WORKDIR /home/nonroot
ENTRYPOINT ["/usr/local/bin/acpconform"]
