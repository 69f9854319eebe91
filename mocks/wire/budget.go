package wire

import (
	"fmt"
	"sync/atomic"
)

// Budget is the byte budget of one connection, Options.MaxHeld: everything
// kept of it for later (its transcript, at most a quarter of the budget;
// the messages a peer records; the copies a mock makes of them) is counted
// here, so that a subject that floods cannot exhaust memory. What would go
// past the budget is not kept; the peer calls that a flood and closes the
// connection (see peer.Peer.Hold). Safe for concurrent use.
type Budget struct {
	max  int64
	held atomic.Int64
}

// NewBudget returns a budget of max bytes; max <= 0 means DefaultMaxHeld.
func NewBudget(max int) *Budget {
	if max <= 0 {
		max = DefaultMaxHeld
	}
	return &Budget{max: int64(max)}
}

// Hold counts n more bytes and reports true, unless that would pass the
// budget: then it counts nothing and reports false.
func (b *Budget) Hold(n int) bool {
	for {
		held := b.held.Load()
		if held+int64(n) > b.max {
			return false
		}
		if b.held.CompareAndSwap(held, held+int64(n)) {
			return true
		}
	}
}

// Release gives back n bytes counted by Hold, once they are no longer kept.
func (b *Budget) Release(n int) { b.held.Add(-int64(n)) }

// Held is how many bytes are counted now.
func (b *Budget) Held() int { return int(b.held.Load()) }

// Max is the budget in bytes.
func (b *Budget) Max() int { return int(b.max) }

// Bytes writes n bytes exactly, with Size when that reads easier:
// "1048576 bytes (1 MiB)", "64 bytes".
func Bytes(n int) string {
	if n < 1<<10 {
		return Size(n)
	}
	return fmt.Sprintf("%d bytes (%s)", n, Size(n))
}

// Size writes n bytes as a person would read it: "64 MiB", "1.5 MiB",
// "16 KiB", "300 bytes".
func Size(n int) string {
	const kib, mib = 1 << 10, 1 << 20
	switch {
	case n >= mib && n%mib == 0:
		return fmt.Sprintf("%d MiB", n/mib)
	case n >= mib:
		return fmt.Sprintf("%.1f MiB", float64(n)/mib)
	case n >= kib && n%kib == 0:
		return fmt.Sprintf("%d KiB", n/kib)
	case n >= kib:
		return fmt.Sprintf("%.1f KiB", float64(n)/kib)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
