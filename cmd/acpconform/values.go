package main

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/acpconform/acpconform/reports"
)

// byteSize is a flag value counting bytes: a number, or a number with the
// unit KiB, MiB or GiB ("64MiB"), within [1, max].
type byteSize struct {
	n   int
	max int
}

func (b *byteSize) String() string { return formatBytes(b.n) }

// Type names the value in help: --max-frame SIZE.
func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	text := strings.TrimSpace(s)
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(text, u.suffix); ok {
			text, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a size: give a number of bytes, or one with KiB, MiB or GiB such as 64MiB", s)
	case n < 1 || n > int64(b.max/mult):
		return fmt.Errorf("%s is out of range: give 1 byte to %s", s, formatBytes(b.max))
	}
	b.n = int(n) * mult
	return nil
}

// formatBytes spells n bytes in the largest unit that divides it.
func formatBytes(n int) string {
	for _, u := range []struct {
		name string
		size int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return strconv.Itoa(n)
}

// maxSize bounds every size flag: what one connection may hold in memory.
const maxSize = 1 << 30

// positive checks that each duration flag is above zero.
func positive(durations map[string]time.Duration) error {
	for name, d := range durations {
		if d <= 0 {
			return fmt.Errorf("--%s %s: give a duration above zero, such as 30s", name, d)
		}
	}
	return nil
}

// webSocketURL checks a ws:// or wss:// URL with a host.
func webSocketURL(flag, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s %q is not a URL: %v", flag, raw, errorText(err))
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return fmt.Errorf("%s %q is not a ws:// or wss:// URL", flag, raw)
	}
	if u.Host == "" {
		return fmt.Errorf("%s %q names no host", flag, raw)
	}
	return nil
}

// errorText is the reason of a url.Error, without the URL it repeats.
func errorText(err error) string {
	if u, ok := err.(*url.Error); ok {
		return u.Err.Error()
	}
	return err.Error()
}

// checkCommand checks a subject's command line: it names a program.
func checkCommand(argv []string) error {
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		return fmt.Errorf("the command after -- is empty: name the program to start")
	}
	return nil
}

// shardValue is the flag value of --shard: i/n, one of n shards.
type shardValue struct{ shard reports.Shard }

func (s *shardValue) String() string {
	if s.shard.Count == 0 {
		return ""
	}
	return s.shard.String()
}

// Type names the value in help: --shard I/N.
func (s *shardValue) Type() string { return "I/N" }

func (s *shardValue) Set(text string) error {
	sh, err := reports.ParseShard(text)
	if err != nil {
		return err
	}
	s.shard = sh
	return nil
}
