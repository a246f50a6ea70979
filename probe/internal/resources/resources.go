// Package resources samples what the measured server uses, once per sample period on the histograms' boundaries: CPU
// time, resident set size and its peak. The server is its process and every process it started (nginx's workers under
// their idle master, a forking server), found again at each period. It serves /pacer/v1/resources (contract
// ResourceUse, golden resources.json) when the probe knows the server's process (--pid).
package resources

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/procfs"
)

// Use is the contract's ResourceUse.
type Use struct {
	Pid          int      `json:"pid"`
	PeriodMillis int64    `json:"periodMillis"`
	CpusAllowed  int      `json:"cpusAllowed,omitempty"`
	PeakResets   bool     `json:"peakResets"`
	Samples      []Sample `json:"samples"`
}

// Sample is one period. A process that is not a JVM has no collector figures, and the probe measures no stalls, so
// those are always left out here.
type Sample struct {
	StartEpochMs int64 `json:"startEpochMs"`
	EndEpochMs   int64 `json:"endEpochMs"`
	CPUNanos     int64 `json:"cpuNanos"`
	RSSBytes     int64 `json:"rssBytes"`
	PeakRSSBytes int64 `json:"peakRssBytes"`
	// RunQueueWaitNanos is the time the process's threads waited for a CPU in the period, RunSlices the times they
	// were put on one; nil where unknown.
	RunQueueWaitNanos *int64 `json:"runQueueWaitNanos,omitempty"`
	RunSlices         *int64 `json:"runSlices,omitempty"`
}

// maxSamples bounds memory as the Java agent does: six hours at 1 s.
const maxSamples = 21_600

// Sampler reads /proc/<pid> and its descendants' at each period boundary.
type Sampler struct {
	pid      int
	periodMs int64
	cpus     int

	mu         sync.Mutex
	samples    []Sample
	peakResets bool
	lastCPU    map[int]time.Duration // per process of the tree, its CPU time at the last boundary
	lastEnd    int64
	lastSched  map[string][2]int64 // per thread id, its schedstat's wait and slices
}

// New starts from now: the first period is partial, as the histograms' first one. cpus is the process's cpuset
// size (0 when unknown).
func New(pid int, periodMs int64, cpus int, nowEpochMs int64) (*Sampler, error) {
	if _, err := procfs.NewProc(pid); err != nil {
		return nil, fmt.Errorf("the server's process %d: %w", pid, err)
	}
	s := &Sampler{pid: pid, periodMs: periodMs, cpus: cpus, lastEnd: nowEpochMs, lastCPU: map[int]time.Duration{}}
	tree := s.tree()
	if _, err := s.cpuDelta(tree); err != nil {
		return nil, err
	}
	s.peakResets = s.resetPeak(tree)
	s.lastSched = map[string][2]int64{}
	s.schedDelta(tree)
	return s, nil
}

// tree is the server's process and its descendants, the server first: every process whose parent chain reaches it.
func (s *Sampler) tree() []int {
	all, err := procfs.AllProcs()
	if err != nil {
		return []int{s.pid}
	}
	children := map[int][]int{}
	for _, p := range all {
		if stat, err := p.Stat(); err == nil && p.PID != s.pid {
			children[stat.PPID] = append(children[stat.PPID], p.PID)
		}
	}
	tree := []int{s.pid}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i]]...)
	}
	return tree
}

// schedDelta is the time the process's threads waited for a CPU since the last call, and the slices they ran, thread
// by thread from /proc/<pid>/task/<tid>/schedstat (its second and third fields); a thread that ended within the period
// is missed. nil where the kernel keeps no schedstat.
func (s *Sampler) schedDelta(tree []int) *[2]int64 {
	var delta [2]int64
	now := map[string][2]int64{}
	for _, pid := range tree {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			if pid == s.pid {
				return nil
			}
			continue // a child that ended
		}
		d := s.readSched(pid, tasks, now)
		if d == nil {
			return nil
		}
		delta[0] += d[0]
		delta[1] += d[1]
	}
	s.lastSched = now
	return &delta
}

// readSched adds one process's threads to now and returns their change since the last reading.
func (s *Sampler) readSched(pid int, tasks []os.DirEntry, now map[string][2]int64) *[2]int64 {
	var delta [2]int64
	for _, task := range tasks {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, task.Name()))
		if err != nil {
			continue // the thread ended while being read
		}
		fields := strings.Fields(string(raw))
		if len(fields) < 3 {
			return nil
		}
		var current [2]int64
		for i := range current {
			if current[i], err = strconv.ParseInt(fields[i+1], 10, 64); err != nil {
				return nil
			}
			delta[i] += max(0, current[i]-s.lastSched[task.Name()][i])
		}
		now[task.Name()] = current
	}
	return &delta
}

// cpuDelta is the user + system time the tree used since the last call, process by process: a process new to the
// tree counts from its start, one gone since counts no more (what it used in its last moments is lost). The kernel
// counts in clock ticks (USER_HZ, 100 per second on Linux), so a period's figure is good to 10 ms per process. An
// error means the server's own process is gone.
func (s *Sampler) cpuDelta(tree []int) (time.Duration, error) {
	var delta time.Duration
	now := make(map[int]time.Duration, len(tree))
	for _, pid := range tree {
		stat, err := read(pid, procfs.Proc.Stat)
		if err != nil {
			if pid == s.pid {
				return 0, err
			}
			continue
		}
		cpu := time.Duration(stat.CPUTime() * float64(time.Second))
		delta += max(0, cpu-s.lastCPU[pid])
		now[pid] = cpu
	}
	s.lastCPU = now
	return delta, nil
}

// read is one of a process's /proc files, parsed; an error when the process is gone.
func read[T any](pid int, file func(procfs.Proc) (T, error)) (T, error) {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		var none T
		return none, err
	}
	return file(proc)
}

// memory is the tree's resident set and each process's peak, summed: pages shared between its processes (the code,
// a master's memory its workers inherited) count once per process, so for more than one process both are upper bounds.
func (s *Sampler) memory(tree []int) (rss, peak int64, err error) {
	for _, pid := range tree {
		status, err := read(pid, procfs.Proc.NewStatus)
		if err != nil {
			if pid == s.pid {
				return 0, 0, err
			}
			continue
		}
		rss += int64(status.VmRSS)
		peak += int64(max(status.VmRSS, status.VmHWM))
	}
	return rss, peak, nil
}

// resetPeak makes the kernel's high-water mark of each process start again from its current RSS (Linux 4.0+,
// writing 5 to clear_refs), so that each period's peak is its own.
func (s *Sampler) resetPeak(tree []int) bool {
	reset := true
	for _, pid := range tree {
		reset = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil && reset
	}
	return reset
}

// Close ends the period at endEpochMs. An error means the process is gone.
func (s *Sampler) Close(endEpochMs int64) error {
	tree := s.tree()
	cpu, err := s.cpuDelta(tree)
	if err != nil {
		return err
	}
	rss, peak, err := s.memory(tree)
	if err != nil {
		return err
	}
	reset := s.resetPeak(tree)
	var wait, slices *int64
	if sched := s.schedDelta(tree); sched != nil {
		wait, slices = &sched[0], &sched[1]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples = append(s.samples, Sample{StartEpochMs: s.lastEnd, EndEpochMs: endEpochMs, CPUNanos: int64(cpu),
		RSSBytes: rss, PeakRSSBytes: max(rss, peak), RunQueueWaitNanos: wait, RunSlices: slices})
	if len(s.samples) > maxSamples {
		s.samples = s.samples[len(s.samples)-maxSamples:]
	}
	s.peakResets = s.peakResets && reset
	s.lastEnd = endEpochMs
	return nil
}

// Run closes a period at every wall-clock multiple of the period until ctx ends or the process is gone.
func (s *Sampler) Run(ctx context.Context) {
	for {
		now := time.Now().UnixMilli()
		next := (now/s.periodMs + 1) * s.periodMs
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(next-now) * time.Millisecond):
		}
		if s.Close(next) != nil {
			return
		}
	}
}

// Use is the document of /pacer/v1/resources.
func (s *Sampler) Use() Use {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Use{Pid: s.pid, PeriodMillis: s.periodMs, CpusAllowed: s.cpus, PeakResets: s.peakResets,
		Samples: append([]Sample(nil), s.samples...)}
}
