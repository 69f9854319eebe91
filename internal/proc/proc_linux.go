package proc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes this process the parent of its orphaned
// descendants (prctl PR_SET_CHILD_SUBREAPER), where they would otherwise
// go to init, so that Stop can kill and reap what a subject left behind.
// Call it once, early in main. It notes the children this program has
// then (inherited), which are never its to end. On platforms other than
// Linux it does nothing.
func BecomeSubreaper() error {
	self := os.Getpid()
	family := lineage(processes(), func(s procStat) bool { return s.ppid == self })
	inherited.Lock()
	for _, s := range family {
		inherited.members = append(inherited.members, member{s.pid, s.start})
	}
	inherited.Unlock()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("proc: become a child subreaper: %w", err)
	}
	return nil
}

// inherited holds the processes that were this program's children when it
// became a subreaper, and their descendants then: a shell that execs
// acpconform hands it its background jobs (`helper & exec acpconform ...`)
// and the readers of its redirections (`exec > >(tee log)`). They are the
// caller's, never ended: EndOrphans passes them by. (What such a process
// starts later and orphans comes to us unmarked, like a subject's daemon,
// and is ended with the subjects' orphans.)
var inherited struct {
	sync.Mutex
	members []member
}

// wasInherited reports whether s is a process inherited holds.
func wasInherited(s procStat) bool {
	inherited.Lock()
	defer inherited.Unlock()
	return slices.Contains(inherited.members, member{s.pid, s.start})
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

// startCmd starts cmd with SIGKILL as its parent-death signal
// (PR_SET_PDEATHSIG), so that the process dies with this program however
// this program dies, SIGKILL included. The kernel sends that signal when
// the thread that forked the process exits, not the program (prctl(2),
// go.dev/issue/27505), and the Go runtime ends a thread whose locked
// goroutine returns: so every fork runs on one goroutine locked to its
// thread for the life of the program.
func startCmd(cmd *exec.Cmd) error {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	forks() <- func() { started <- cmd.Start() }
	return <-started
}

// forks runs the functions sent to it on the fork thread, one at a time.
var forks = sync.OnceValue(func() chan<- func() {
	c := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives as long as the program
		for f := range c {
			f()
		}
	}()
	return c
})

// executable is this program's executable, for the watchdog: the file
// itself, even if its path has gone or changed since it started.
func executable() (string, error) { return "/proc/self/exe", nil }

// endDescendants kills p's family and reaps the members that became our
// children, until none is alive or unreaped by us, or ctx ends.
func (p *Process) endDescendants(ctx context.Context) {
	end(ctx, func() []procStat {
		family := p.family(processes())
		for _, s := range family {
			p.know(s)
		}
		return family
	})
}

// EndOrphans kills what subjects left behind that came to this program as
// their subreaper (BecomeSubreaper), with their descendants, and reaps
// them, until none is left or ctx ends: every child of this program that
// Start did not start and that is no watchdog. A daemon that left its
// session and dropped its environment is named neither by a group nor by
// a marker, and once its parent has exited no parent link leads to it
// from a subject: only its new parent, this program, still knows it. Call
// it at the end, after StopAll, and only in a program whose every child
// comes from Start (the CLI, not a test binary). The children it had when
// it became a subreaper are not its to end (inherited).
func EndOrphans(ctx context.Context) {
	self := os.Getpid()
	ours := map[int]bool{}
	for _, p := range started() {
		ours[p.cmd.Process.Pid] = true
	}
	end(ctx, func() []procStat {
		return lineage(processes(), func(s procStat) bool {
			return s.ppid == self && !ours[s.pid] && !isWatchdog(s.pid) && !wasInherited(s)
		})
	})
}

// endRun is the watchdog's sweep of a run whose program died: it kills the
// processes of our uid that carry a marker of run or are in one of groups,
// and their descendants, until none is alive or ctx ends. Only processes
// younger than this watchdog can carry a marker of its run.
func endRun(ctx context.Context, run string, groups map[int]bool) {
	self, err := readStat(os.Getpid())
	if err != nil {
		return
	}
	ofRun := func(m string) bool { return strings.HasPrefix(m, run+"-") }
	end(ctx, func() []procStat {
		return lineage(processes(), func(s procStat) bool {
			return groups[s.pgid] || s.start >= self.start && slices.ContainsFunc(markers(s.pid), ofRun)
		})
	})
}

// end kills the processes find returns and reaps those that are zombies
// of ours, until find returns none alive or unreaped by us, or ctx ends.
// It looks again after each round, because a member may have started
// another before it died. A dead member that another process (init) is to
// reap is not waited for: it holds nothing.
func end(ctx context.Context, find func() []procStat) {
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
		for _, s := range find() {
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
	main := p.cmd.Process.Pid
	running := true
	select {
	case <-p.exited: // its pid is free for another process
		running = false
	default:
	}
	p.mu.Lock()
	known := slices.Clone(p.known)
	p.mu.Unlock()
	return lineage(all, func(s procStat) bool {
		return s.pid == main && running ||
			s.pgid == main ||
			s.start >= p.startTicks && slices.Contains(markers(s.pid), p.marker) ||
			slices.Contains(known, member{s.pid, s.start})
	}, main)
}

// lineage returns the processes of all that pick chooses and their
// descendants, other than this process and those except names.
func lineage(all []procStat, pick func(procStat) bool, except ...int) []procStat {
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
	for _, s := range all {
		if pick(s) {
			add(s.pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			add(c)
		}
	}
	self := os.Getpid()
	var out []procStat
	for pid := range in {
		if s, ok := byPid[pid]; ok && pid != self && !slices.Contains(except, pid) {
			out = append(out, s)
		}
	}
	return out
}

// markers returns the markers in the environment of pid (MarkerEnv), when
// it is a process of our uid.
func markers(pid int) []string {
	dir := "/proc/" + strconv.Itoa(pid)
	info, err := os.Stat(dir)
	if err != nil {
		return nil
	}
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return nil
	}
	env, err := os.ReadFile(dir + "/environ")
	if err != nil {
		return nil
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(MarkerEnv+"=")); ok {
			return strings.Fields(string(v))
		}
	}
	return nil
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
