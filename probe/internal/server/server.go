// Package server finds out what the probe is to measure: the listening address, and the server's process when given
// (its network namespace, CPUs, user, whether it listens and whether it still runs).
package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"dev.pacer/probe/internal/attach"
)

// Parse reads ADDR:PORT; an empty or unspecified address (0.0.0.0, ::) selects by port alone.
func Parse(listen string) (attach.Target, error) {
	host, portText, err := net.SplitHostPort(listen)
	if err != nil {
		return attach.Target{}, fmt.Errorf("--listen %q is not ADDR:PORT (e.g. 0.0.0.0:8080 or 10.1.2.3:8080): %v", listen, err)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return attach.Target{}, fmt.Errorf("--listen %q: the port must be 1-65535", listen)
	}
	t := attach.Target{Port: uint16(port)}
	if host != "" {
		if t.Addr, err = netip.ParseAddr(host); err != nil {
			return attach.Target{}, fmt.Errorf("--listen %q: the address must be an IP address: %v", listen, err)
		}
	}
	return t, nil
}

// Process is the measured server.
type Process struct {
	Pid          int
	UID          int
	Cpuset       string
	CpusetSize   int
	NetnsInode   uint32
	StartEpochMs int64
}

// ReadProcess reads what the info document says of the server.
func ReadProcess(pid int) (*Process, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	status, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return nil, fmt.Errorf("--pid %d: no such process (%v)", pid, err)
	}
	p := &Process{Pid: pid}
	for _, line := range strings.Split(string(status), "\n") {
		key, value, _ := strings.Cut(line, ":")
		value = strings.TrimSpace(value)
		switch key {
		case "Uid":
			p.UID, _ = strconv.Atoi(strings.Fields(value)[0])
		case "Cpus_allowed_list":
			p.Cpuset = value
			p.CpusetSize = CPUCount(value)
		}
	}
	if p.NetnsInode, err = NetnsInode(filepath.Join(dir, "ns", "net")); err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if unix.Stat(dir, &st) == nil {
		p.StartEpochMs = st.Ctim.Sec*1000 + st.Ctim.Nsec/1_000_000
	}
	return p, nil
}

// NetnsInode is the inode that identifies a network namespace.
func NetnsInode(path string) (uint32, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("network namespace %s: %v", path, err)
	}
	return uint32(st.Ino), nil
}

// CPUCount counts a CPU list such as 0-3,6.
func CPUCount(list string) int {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		if err1 != nil {
			continue
		}
		b := a
		if isRange {
			if v, err := strconv.Atoi(hi); err == nil {
				b = v
			}
		}
		n += b - a + 1
	}
	return n
}

// WaitAccepting returns once the target accepts connections: with a server process, once that process's network
// namespace has a listening socket on the port (/proc/PID/net/tcp{,6}); without one, once a TCP connection to the
// address succeeds. It fails when the server exits or the wait runs out.
func WaitAccepting(ctx context.Context, t attach.Target, wait time.Duration, server *Process) error {
	deadline := time.Now().Add(wait)
	for {
		if server != nil {
			if exited(server.Pid) {
				return fmt.Errorf("the server (pid %d) exited before it listened on port %d", server.Pid, t.Port)
			}
			if listening(server.Pid, t.Port) {
				return nil
			}
		} else if accepts(t) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s: is the server running, and is that its address and port?", t, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func accepts(t attach.Target) bool {
	addr := t.Addr
	if !addr.IsValid() || addr.IsUnspecified() {
		addr = netip.MustParseAddr("127.0.0.1")
	}
	c, err := net.DialTimeout("tcp", netip.AddrPortFrom(addr, t.Port).String(), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// listening: a socket in state LISTEN (0A) on the port, in the process's network namespace.
func listening(pid int, port uint16) bool {
	want := fmt.Sprintf(":%04X", port)
	for _, file := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "net", file))
		if err != nil {
			continue
		}
		scanner := bufio.NewScanner(f)
		for scanner.Scan() {
			fields := strings.Fields(scanner.Text())
			if len(fields) > 3 && strings.HasSuffix(fields[1], want) && fields[3] == "0A" {
				f.Close()
				return true
			}
		}
		f.Close()
	}
	return false
}

// exited: no such process, or a zombie.
func exited(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

// WaitExit returns an error when the server exits, nil when the context ends first.
func WaitExit(ctx context.Context, pid int) error {
	for {
		if exited(pid) {
			return fmt.Errorf("the server (pid %d) exited", pid)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}
