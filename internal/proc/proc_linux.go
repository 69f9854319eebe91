package proc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes this process the parent of its orphaned
// descendants (prctl PR_SET_CHILD_SUBREAPER), where they would otherwise
// go to init, so that Stop can kill and reap what a subject left behind.
// Call it once, early in main. On platforms other than Linux it does
// nothing.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("proc: become a child subreaper: %w", err)
	}
	return nil
}

// noteStart notes when the process started, so that finding its family
// need not read the environment of processes older than it: none of those
// can be its descendant.
func (p *Process) noteStart() {
	if s, err := readStat(p.cmd.Process.Pid); err == nil {
		p.startTicks = s.start
	}
}

// remember notes the descendants of p as they are now, so that Stop still
// finds them after p exits and they lose their parent.
func (p *Process) remember() {
	for _, s := range p.family(processes()) {
		p.know(s)
	}
}

func (p *Process) know(s procStat) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := member{s.pid, s.start}
	if !slices.Contains(p.known, m) {
		p.known = append(p.known, m)
	}
}

// endDescendants kills p's family and reaps the members that became our
// children, until none is alive or unreaped by us, or ctx ends. It looks
// again after each round, because a member may have started another
// before it died. A dead member that another process (init) is to reap is
// not waited for: it holds nothing.
func (p *Process) endDescendants(ctx context.Context) {
	// A child of ours that changes state raises SIGCHLD; a member dying
	// as the child of another raises nothing here, hence the ticker too.
	childEvents := make(chan os.Signal, 1)
	signal.Notify(childEvents, syscall.SIGCHLD)
	defer signal.Stop(childEvents)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	self := os.Getpid()
	for {
		pending := false
		for _, s := range p.family(processes()) {
			p.know(s)
			switch {
			case s.state == 'Z' && s.ppid == self:
				// Only this pid: wait4(-1) would take os/exec's children.
				_, _ = unix.Wait4(s.pid, nil, unix.WNOHANG, nil)
				pending = true // look again: it may have had children
			case s.state != 'Z' && s.state != 'X':
				_ = syscall.Kill(s.pid, syscall.SIGKILL)
				pending = true
			}
		}
		if !pending {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-childEvents:
		case <-tick.C:
		}
	}
}

// family returns the processes that belong to p, zombies included, other
// than p itself and this process: those in p's process group, those of our
// uid that carry p's marker, those p.known still names, and the
// descendants of all these and of p while it runs.
func (p *Process) family(all []procStat) []procStat {
	main, self := p.cmd.Process.Pid, os.Getpid()
	byPid := make(map[int]procStat, len(all))
	children := make(map[int][]int)
	for _, s := range all {
		byPid[s.pid] = s
		children[s.ppid] = append(children[s.ppid], s.pid)
	}
	in := make(map[int]bool)
	var queue []int
	add := func(pid int) {
		if !in[pid] {
			in[pid] = true
			queue = append(queue, pid)
		}
	}
	select {
	case <-p.exited: // its pid is free for another process
	default:
		add(main)
	}
	for _, s := range all {
		if s.pgid == main || s.start >= p.startTicks && p.marked(s.pid) {
			add(s.pid)
		}
	}
	p.mu.Lock()
	for _, m := range p.known {
		if s, ok := byPid[m.pid]; ok && s.start == m.start {
			add(m.pid)
		}
	}
	p.mu.Unlock()
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			add(c)
		}
	}
	var family []procStat
	for pid := range in {
		if s, ok := byPid[pid]; ok && pid != main && pid != self {
			family = append(family, s)
		}
	}
	return family
}

// marked says whether pid is a process of our uid with p's marker in its
// environment.
func (p *Process) marked(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	info, err := os.Stat(dir)
	if err != nil {
		return false
	}
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return false
	}
	env, err := os.ReadFile(dir + "/environ")
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(MarkerEnv+"=")); ok {
			return slices.Contains(strings.Fields(string(v)), p.marker)
		}
	}
	return false
}

// procStat is what /proc/<pid>/stat says of a process.
type procStat struct {
	pid, ppid, pgid int
	state           byte   // R, S, D, Z (zombie), X (dead), ...
	start           uint64 // clock ticks after boot
}

// processes lists every process in /proc. It runs a few times for each
// process stopped, so it reads each stat file with three system calls and
// no allocation: os.ReadFile costs twice that.
func processes() []procStat {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	all := make([]procStat, 0, len(names))
	var buf [statSize]byte
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if s, err := readStatInto(pid, buf[:]); err == nil {
			all = append(all, s)
		}
	}
	return all
}

// statSize holds any /proc/<pid>/stat: 52 numbers after a command name of
// at most 64 bytes.
const statSize = 1024

func readStat(pid int) (procStat, error) {
	var buf [statSize]byte
	return readStatInto(pid, buf[:])
}

// readStatInto reads /proc/<pid>/stat into buf and parses it.
func readStatInto(pid int, buf []byte) (procStat, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return procStat{}, err
	}
	n, err := unix.Read(fd, buf)
	unix.Close(fd)
	if err != nil {
		return procStat{}, fmt.Errorf("proc: %s: %w", path, err)
	}
	return parseStat(pid, buf[:n])
}

// parseStat reads the fields of a stat line that family needs.
func parseStat(pid int, b []byte) (procStat, error) {
	// "pid (comm) state ppid pgrp session ... starttime ...": comm may hold
	// anything, ')' included, so the fields are counted from its end.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("proc: /proc/%d/stat: no command name", pid)
	}
	var f [20][]byte // state, then fields 4 to 22: ppid, pgrp, ..., starttime
	n := 0
	for field := range bytes.FieldsSeq(b[i+1:]) {
		if n == len(f) {
			break
		}
		f[n] = field
		n++
	}
	if n < len(f) {
		return procStat{}, fmt.Errorf("proc: /proc/%d/stat: %d fields after the name", pid, n)
	}
	s := procStat{pid: pid, state: f[0][0]}
	var err error
	s.ppid, err = atoi(f[1])
	if err == nil {
		s.pgid, err = atoi(f[2])
	}
	if err == nil {
		s.start, err = strconv.ParseUint(string(f[19]), 10, 64) // no allocation: the compiler sees through it
	}
	if err != nil {
		return procStat{}, fmt.Errorf("proc: /proc/%d/stat: %w", pid, err)
	}
	return s, nil
}

func atoi(b []byte) (int, error) { return strconv.Atoi(string(b)) }
