// Package resources samples what the measured server process uses, once per sample period on the histograms'
// boundaries: CPU time, resident set size and its peak. It serves /pacer/v1/resources (contract ResourceUse, golden
// resources.json) when the probe knows the server's process (--pid).
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

// Sampler reads /proc/<pid> at each period boundary.
type Sampler struct {
	proc     procfs.Proc
	pid      int
	periodMs int64
	cpus     int

	mu         sync.Mutex
	samples    []Sample
	peakResets bool
	lastCPU    time.Duration
	lastEnd    int64
	lastSched  map[string][2]int64 // per thread id, its schedstat's wait and slices
}

// New starts from now: the first period is partial, as the histograms' first one. cpus is the process's cpuset
// size (0 when unknown).
func New(pid int, periodMs int64, cpus int, nowEpochMs int64) (*Sampler, error) {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return nil, fmt.Errorf("the server's process %d: %w", pid, err)
	}
	s := &Sampler{proc: proc, pid: pid, periodMs: periodMs, cpus: cpus, lastEnd: nowEpochMs}
	if s.lastCPU, err = s.cpu(); err != nil {
		return nil, err
	}
	s.peakResets = s.resetPeak()
	s.lastSched = map[string][2]int64{}
	s.schedDelta()
	return s, nil
}

// schedDelta is the time the process's threads waited for a CPU since the last call, and the slices they ran, thread
// by thread from /proc/<pid>/task/<tid>/schedstat (its second and third fields); a thread that ended within the period
// is missed. nil where the kernel keeps no schedstat.
func (s *Sampler) schedDelta() *[2]int64 {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", s.pid))
	if err != nil {
		return nil
	}
	var delta [2]int64
	now := make(map[string][2]int64, len(tasks))
	for _, task := range tasks {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", s.pid, task.Name()))
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
	s.lastSched = now
	return &delta
}

// cpu is user + system time. The kernel counts it in clock ticks (USER_HZ, 100 per second on Linux), so a
// period's figure is good to 10 ms.
func (s *Sampler) cpu() (time.Duration, error) {
	stat, err := s.proc.Stat()
	if err != nil {
		return 0, err
	}
	return time.Duration(stat.CPUTime() * float64(time.Second)), nil
}

// resetPeak makes the kernel's high-water mark start again from the current RSS (Linux 4.0+, writing 5 to
// clear_refs), so that each period's peak is its own.
func (s *Sampler) resetPeak() bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.pid), []byte("5"), 0) == nil
}

// Close ends the period at endEpochMs. An error means the process is gone.
func (s *Sampler) Close(endEpochMs int64) error {
	cpu, err := s.cpu()
	if err != nil {
		return err
	}
	status, err := s.proc.NewStatus()
	if err != nil {
		return err
	}
	reset := s.resetPeak()
	var wait, slices *int64
	if sched := s.schedDelta(); sched != nil {
		wait, slices = &sched[0], &sched[1]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples = append(s.samples, Sample{StartEpochMs: s.lastEnd, EndEpochMs: endEpochMs, CPUNanos: max(0, int64(cpu-s.lastCPU)),
		RSSBytes: int64(status.VmRSS), PeakRSSBytes: int64(max(status.VmRSS, status.VmHWM)), RunQueueWaitNanos: wait, RunSlices: slices})
	if len(s.samples) > maxSamples {
		s.samples = s.samples[len(s.samples)-maxSamples:]
	}
	s.peakResets = s.peakResets && reset
	s.lastCPU, s.lastEnd = cpu, endEpochMs
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
