// Package attach checks that this kernel and these privileges can run the probe, loads the BPF program for one
// target server and reads its records.
package attach

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"golang.org/x/sys/unix"

	"dev.pacer/probe/internal/bpf"
)

// Hooks are the tracepoints the probe attaches to, as BTF raw tracepoints (tp_btf). The kernel declares each as a
// typedef btf_trace_<name>; their absence is the clearest sign of a kernel too old (they came with Linux 6.3).
var Hooks = []string{"sk_data_ready", "sock_recv_length", "sock_send_length", "inet_sock_set_state"}

// MinimumKernel is the first release with every hook.
const MinimumKernel = "6.3"

// Target selects the server's accepted connections: its local port, and optionally its local address and network
// namespace (inode of /proc/<pid>/ns/net).
type Target struct {
	Port       uint16
	Addr       netip.Addr // invalid or unspecified: any address
	NetnsInode uint32     // 0: any namespace
}

func (t Target) String() string {
	s := "*:" + strconv.Itoa(int(t.Port))
	if t.Addr.IsValid() && !t.Addr.IsUnspecified() {
		s = netip.AddrPortFrom(t.Addr, t.Port).String()
	}
	if t.NetnsInode != 0 {
		s += fmt.Sprintf(" in net namespace %d", t.NetnsInode)
	}
	return s
}

// CheckPrivileges: loading tracing programs needs CAP_BPF and CAP_PERFMON (root has both).
func CheckPrivileges() error {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return fmt.Errorf("reading /proc/self/status: %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if !strings.HasPrefix(line, "CapEff:") {
			continue
		}
		caps, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(line, "CapEff:")), 16, 64)
		if err != nil {
			return fmt.Errorf("reading CapEff %q: %w", line, err)
		}
		const capPerfmon, capBPF = 38, 39
		if caps&(1<<capBPF) != 0 && caps&(1<<capPerfmon) != 0 {
			return nil
		}
	}
	return errors.New("the probe needs CAP_BPF and CAP_PERFMON to load its BPF program: run it as root " +
		"(sudo), or give it those two capabilities (setcap cap_bpf,cap_perfmon+ep, or a pod's securityContext)")
}

// CheckKernel: the kernel has BTF and every hook. The spec is the kernel's (btf.LoadKernelSpec) or, in tests, any.
func CheckKernel(kernel *btf.Spec, release string) error {
	var missing []string
	for _, hook := range Hooks {
		var typedef *btf.Typedef
		if err := kernel.TypeByName("btf_trace_"+hook, &typedef); err != nil {
			missing = append(missing, hook)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("kernel %s lacks the tracepoint(s) %s: the probe needs Linux %s or later with BTF "+
			"(CONFIG_DEBUG_INFO_BTF)", release, strings.Join(missing, ", "), MinimumKernel)
	}
	return nil
}

// KernelRelease is uname -r.
func KernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}

// Counters of what the kernel side saw and lost.
type Counters struct {
	Emitted, Dropped, NoStorage, OrphanWrites, Abandoned uint64
	// NeverRead: requests whose bytes arrived and were never read before the connection closed or was reset.
	NeverRead uint64
	// ReadAfterPeerClosed: requests read after the client had closed its side; it had given up on them.
	ReadAfterPeerClosed uint64
	// RecursionMisses: program runs the kernel skipped because one of them was already running on that CPU.
	RecursionMisses uint64
}

// Lost is every record that cannot reach the histograms.
func (c Counters) Lost() uint64 { return c.Dropped + c.NoStorage + c.RecursionMisses }

// Probe is the loaded, attached program and its ring buffer reader.
type Probe struct {
	objects bpf.ProbeObjects
	links   []link.Link
	reader  *ringbuf.Reader
	stats   interface{ Close() error }
	// settled walks every connection's state (flush_settled); attached once, opened for each walk
	settled *link.Iter
}

// ValidRingBytes: the kernel wants a power of two and a multiple of the page size.
func ValidRingBytes(n int) error {
	page := os.Getpagesize()
	if n < page || n&(n-1) != 0 {
		return fmt.Errorf("--ring-bytes must be a power of two of at least %d (the page size), was %d", page, n)
	}
	return nil
}

// Attach loads the program for the target and attaches it to every hook. Close releases it all. runTimeStats turns on
// the kernel's BPF run-time statistics, which are kernel-wide: every BPF program on the host pays for them.
func Attach(target Target, ringBytes int, runTimeStats bool) (*Probe, error) {
	if err := ValidRingBytes(ringBytes); err != nil {
		return nil, err
	}
	spec, err := bpf.LoadProbe()
	if err != nil {
		return nil, fmt.Errorf("reading the embedded BPF object: %w", err)
	}
	set := func(name string, value any) error {
		v, ok := spec.Variables[name]
		if !ok {
			return fmt.Errorf("the BPF object has no variable %s", name)
		}
		return v.Set(value)
	}
	addr4, addr6, anyAddr := uint32(0), [4]uint32{}, uint8(1)
	if target.Addr.IsValid() && !target.Addr.IsUnspecified() {
		anyAddr = 0
		if a := target.Addr.Unmap(); a.Is4() {
			b := a.As4()
			addr4 = networkOrder(b[:])
		} else {
			b := target.Addr.As16()
			for i := range addr6 {
				addr6[i] = networkOrder(b[4*i : 4*i+4])
			}
		}
	}
	for name, value := range map[string]any{"target_port": target.Port, "target_addr4": addr4, "target_addr6": addr6,
		"target_any_addr": anyAddr, "target_netns": target.NetnsInode, "wakeup_bytes": uint64(ringBytes / 8)} {
		if err := set(name, value); err != nil {
			return nil, fmt.Errorf("setting %s: %w", name, err)
		}
	}
	spec.Maps["events"].MaxEntries = uint32(ringBytes)
	p := &Probe{}
	if err := spec.LoadAndAssign(&p.objects, nil); err != nil {
		var verr *ebpf.VerifierError
		if errors.As(err, &verr) {
			return nil, fmt.Errorf("the kernel refused the probe's BPF program: %+v", verr)
		}
		return nil, fmt.Errorf("loading the BPF program: %w", err)
	}
	// Per-program run counts and time, for the cost figures, only when asked (recursion misses count regardless).
	if runTimeStats {
		if stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME)); err == nil {
			p.stats = stats
		}
	}
	for _, prog := range []*ebpf.Program{p.objects.OnDataReady, p.objects.OnRecv, p.objects.OnSend, p.objects.OnState} {
		l, err := link.AttachTracing(link.TracingOptions{Program: prog})
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("attaching %s: %w", prog, err)
		}
		p.links = append(p.links, l)
	}
	p.settled, err = link.AttachIter(link.IterOptions{Program: p.objects.FlushSettled, Map: p.objects.Conns})
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("attaching the iterator over the connections: %w", err)
	}
	p.reader, err = ringbuf.NewReader(p.objects.Events)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("opening the ring buffer: %w", err)
	}
	return p, nil
}

// EndSettled ends every response still open whose last write is at or before beforeMonoNs (CLOCK_MONOTONIC): on a
// connection left idle by its client, a server that reads again only once the next request comes leaves its response
// open until then. Their records go to the ring, to be read before the period they belong to closes.
func (p *Probe) EndSettled(beforeMonoNs uint64) error {
	if err := p.objects.SettledBefore.Put(uint32(0), beforeMonoNs); err != nil {
		return fmt.Errorf("setting the walk's bound: %w", err)
	}
	walk, err := p.settled.Open()
	if err != nil {
		return fmt.Errorf("walking the connections: %w", err)
	}
	defer walk.Close()
	_, err = io.Copy(io.Discard, walk) // the walk writes nothing; reading runs it to its end
	return err
}

// Record is one request: its end on CLOCK_MONOTONIC, its two durations and its client's address (IPv6 or
// IPv4-mapped).
type Record = bpf.ProbeRecord

// Read blocks until a record arrives or the deadline passes (ok false, no error), or the probe is closed (error).
func (p *Probe) Read(deadline time.Time, into *Record) (ok bool, err error) {
	p.reader.SetDeadline(deadline)
	var raw ringbuf.Record
	if err := p.reader.ReadInto(&raw); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return false, nil
		}
		return false, err
	}
	if len(raw.RawSample) < recordBytes {
		return false, fmt.Errorf("short record of %d bytes", len(raw.RawSample))
	}
	b := raw.RawSample
	into.EndNs = le64(b[0:])
	into.ServiceNs = le64(b[8:])
	into.ResidenceNs = le64(b[16:])
	copy(into.Peer[:], b[24:40])
	return true, nil
}

// recordBytes is the size of the BPF program's struct record.
const recordBytes = 40

// networkOrder: the value whose little-endian memory holds these bytes in order, as the kernel stores addresses.
func networkOrder(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// Counters sums the per-CPU counters and the programs' recursion misses.
func (p *Probe) Counters() (Counters, error) {
	var c Counters
	fields := []*uint64{&c.Emitted, &c.Dropped, &c.NoStorage, &c.OrphanWrites, &c.Abandoned, &c.NeverRead, &c.ReadAfterPeerClosed}
	for i, f := range fields {
		var perCPU []uint64
		if err := p.objects.Counters.Lookup(uint32(i), &perCPU); err != nil {
			return c, fmt.Errorf("reading counter %d: %w", i, err)
		}
		for _, v := range perCPU {
			*f += v
		}
	}
	for _, prog := range p.programs() {
		if s, err := prog.Stats(); err == nil {
			c.RecursionMisses += s.RecursionMisses
		}
	}
	return c, nil
}

// RunTime is the programs' total run time and runs, when the kernel's BPF statistics are on.
func (p *Probe) RunTime() (time.Duration, uint64) {
	var total time.Duration
	var runs uint64
	for _, prog := range p.programs() {
		if s, err := prog.Stats(); err == nil {
			total += s.Runtime
			runs += s.RunCount
		}
	}
	return total, runs
}

// Close detaches and unloads everything; a blocked Read returns an error.
func (p *Probe) Close() error {
	if p.reader != nil {
		p.reader.Close()
	}
	for _, l := range p.links {
		l.Close()
	}
	if p.settled != nil {
		p.settled.Close()
	}
	if p.stats != nil {
		p.stats.Close()
	}
	return p.objects.Close()
}

// programs: the four on the hooks, and the walk.
func (p *Probe) programs() []*ebpf.Program {
	return []*ebpf.Program{p.objects.OnDataReady, p.objects.OnRecv, p.objects.OnSend, p.objects.OnState, p.objects.FlushSettled}
}

// MonotonicNanos is CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns.
func MonotonicNanos() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}
