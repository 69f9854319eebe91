package peer

// RememberedIDs is how many response ids p remembers, for specs that
// check a subject cannot make it remember more.
func RememberedIDs(p *Peer) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.answered) + len(p.asked) + len(p.pending) + len(p.released)
}
