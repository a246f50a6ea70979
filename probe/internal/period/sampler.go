// Package period turns timed requests into one HdrHistogram per series and sample period, aligned to wall-clock
// multiples of the period like the Java agent's sampler, and writes them as HdrHistogram interval logs that the
// engine reads like any agent's (docs/server-contract.md).
package period

import (
	"bytes"
	"fmt"
	"sort"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	// SignificantDigits and HighestTrackableNanos are the agent's: 3 digits, 1 ns to 60 s.
	SignificantDigits     = 3
	HighestTrackableNanos = int64(60_000_000_000)
	// MaxRetainedPeriods bounds memory like the agent: six hours at 1 s; the oldest are dropped and counted.
	MaxRetainedPeriods = 21_600
)

// Summary of the last closed period of a series, for /metrics.
type Summary struct {
	Count                   int64
	P50Nanos, P99Nanos, Max int64
}

// Losses of one sample period: requests the probe could not time (dropped, late) and what it saw of requests that
// were never answered or answered to a client that had left. Kernel counts belong to the period in which the reader
// saw them (within one drain interval of the event); late records to the period of their end.
type Losses struct {
	StartEpochMs        int64 `json:"startEpochMs"`
	Dropped             int64 `json:"droppedRecords"`
	Late                int64 `json:"lateRecords"`
	OrphanWrites        int64 `json:"orphanWrites"`
	Abandoned           int64 `json:"abandonedRequests"`
	NeverRead           int64 `json:"neverReadRequests"`
	ReadAfterPeerClosed int64 `json:"readAfterPeerClosed"`
}

func (l Losses) any() bool {
	return l.Dropped+l.Late+l.OrphanWrites+l.Abandoned+l.NeverRead+l.ReadAfterPeerClosed > 0
}

type series struct {
	name  string
	lines []string
	total int64
	last  Summary
}

// Sampler keeps the open periods (the current one and any still within the grace) and the log lines of the closed
// ones. A request belongs to the period holding its end time. A period closes once the grace after its end has
// passed, because a record leaves the kernel only after its response completed; a record for a period already
// closed is counted late, never silently dropped.
type Sampler struct {
	mu              sync.Mutex
	periodMs        int64
	graceMs         int64
	firstStartMs    int64
	closedThroughMs int64 // every period ending at or before this is closed
	baseTimeMs      int64
	series          []*series
	open            map[int64][]*hdrhistogram.Histogram // period start → one histogram per series
	droppedPeriods  int64
	clamped         int64
	late            int64
	losses          map[int64]*Losses // period start → its losses, for periods that had any
	closed          bool
}

// New starts sampling at startMs (epoch milliseconds): the first period runs from there to the next multiple of the
// period, like the agent's first, partial one.
func New(names []string, periodMs, graceMs, startMs int64) *Sampler {
	if periodMs <= 0 {
		panic(fmt.Sprintf("sample period must be at least 1 ms, was %d", periodMs))
	}
	s := &Sampler{periodMs: periodMs, graceMs: graceMs, firstStartMs: startMs, closedThroughMs: startMs,
		// hdrhistogram-go writes BaseTime in whole seconds, and interval stamps relative to it: a whole second keeps
		// every period on its true boundary when the engine reads the log back.
		baseTimeMs: startMs / 1000 * 1000,
		open:       map[int64][]*hdrhistogram.Histogram{}, losses: map[int64]*Losses{}}
	for _, n := range names {
		s.series = append(s.series, &series{name: n})
	}
	return s
}

func (s *Sampler) periodStart(ms int64) int64 {
	start := floorDiv(ms, s.periodMs) * s.periodMs
	if start < s.firstStartMs {
		return s.firstStartMs
	}
	return start
}

// Record adds one request ending at endNanos (epoch nanoseconds) with one value in nanoseconds per series, in the
// order of the names given to New.
func (s *Sampler) Record(endNanos int64, values ...int64) {
	endMs := floorDiv(endNanos, 1_000_000)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || endMs < s.closedThroughMs {
		s.late++
		s.lossesAt(endMs).Late++
		return
	}
	start := s.periodStart(endMs)
	hs, ok := s.open[start]
	if !ok {
		hs = make([]*hdrhistogram.Histogram, len(s.series))
		for i := range hs {
			hs[i] = hdrhistogram.New(1, HighestTrackableNanos, SignificantDigits)
		}
		s.open[start] = hs
	}
	for i, v := range values {
		if i >= len(hs) {
			break
		}
		if v < 0 {
			v = 0
			s.clamped++
		} else if v > HighestTrackableNanos {
			v = HighestTrackableNanos
			s.clamped++
		}
		_ = hs[i].RecordValue(v) // in range by the clamp above
	}
}

// AddKernelLosses adds what the kernel side counted since the last call to the period holding nowMs; only the
// counts are read from kernel (StartEpochMs is ignored).
func (s *Sampler) AddKernelLosses(nowMs int64, kernel Losses) {
	if !kernel.any() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lossesAt(nowMs)
	l.Dropped += kernel.Dropped
	l.OrphanWrites += kernel.OrphanWrites
	l.Abandoned += kernel.Abandoned
	l.NeverRead += kernel.NeverRead
	l.ReadAfterPeerClosed += kernel.ReadAfterPeerClosed
}

// LossesByPeriod lists the periods that had losses, oldest first.
func (s *Sampler) LossesByPeriod() []Losses {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Losses, 0, len(s.losses))
	for _, l := range s.losses {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartEpochMs < out[j].StartEpochMs })
	return out
}

// lossesAt is the losses of the period holding ms, created when missing; the oldest are forgotten past the retention
// of the histograms. Caller holds the lock.
func (s *Sampler) lossesAt(ms int64) *Losses {
	start := s.periodStart(ms)
	l, ok := s.losses[start]
	if !ok {
		l = &Losses{StartEpochMs: start}
		s.losses[start] = l
		oldest := start - MaxRetainedPeriods*s.periodMs
		for k := range s.losses {
			if k < oldest {
				delete(s.losses, k)
			}
		}
	}
	return l
}

// CloseDue closes every period whose end plus the grace is at or before nowMs; periods without any request get an
// empty line, as the agent writes them.
func (s *Sampler) CloseDue(nowMs int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.closed {
		end := floorDiv(s.closedThroughMs, s.periodMs)*s.periodMs + s.periodMs
		if end+s.graceMs > nowMs {
			return
		}
		s.closePeriod(end)
	}
}

// ClosingThrough is the end of the last period CloseDue(nowMs) would close; ok false when it would close none.
func (s *Sampler) ClosingThrough(nowMs int64) (endMs int64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, false
	}
	for end := floorDiv(s.closedThroughMs, s.periodMs)*s.periodMs + s.periodMs; end+s.graceMs <= nowMs; end += s.periodMs {
		endMs, ok = end, true
	}
	return endMs, ok
}

// Close closes every open period, the last one (partial) at nowMs. Records after this are late.
func (s *Sampler) Close(nowMs int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for {
		end := floorDiv(s.closedThroughMs, s.periodMs)*s.periodMs + s.periodMs
		if end >= nowMs {
			break
		}
		s.closePeriod(end)
	}
	if nowMs > s.closedThroughMs {
		s.closePeriod(nowMs)
	}
	s.closed = true
}

// closePeriod writes the period from closedThroughMs to endMs; caller holds the lock.
func (s *Sampler) closePeriod(endMs int64) {
	start := s.closedThroughMs
	hs := s.open[s.periodStart(start)]
	delete(s.open, s.periodStart(start))
	for i, se := range s.series {
		var h *hdrhistogram.Histogram
		if hs != nil {
			h = hs[i]
		} else {
			h = hdrhistogram.New(1, HighestTrackableNanos, SignificantDigits)
		}
		h.SetStartTimeMs(start)
		h.SetEndTimeMs(endMs)
		var line bytes.Buffer
		w := hdrhistogram.NewHistogramLogWriter(&line)
		w.SetBaseTime(s.baseTimeMs)
		if err := w.OutputIntervalHistogram(h); err != nil {
			// encoding a histogram of this geometry cannot fail; keep the period's place with a comment if it does
			line.Reset()
			fmt.Fprintf(&line, "#[period %d-%d of %s not encoded: %v]\n", start, endMs, se.name, err)
		}
		se.lines = append(se.lines, line.String())
		if len(se.lines) > MaxRetainedPeriods {
			se.lines = se.lines[1:]
			if i == 0 {
				s.droppedPeriods++
			}
		}
		se.total += h.TotalCount()
		se.last = Summary{Count: h.TotalCount(), P50Nanos: h.ValueAtQuantile(50), P99Nanos: h.ValueAtQuantile(99), Max: h.Max()}
	}
	s.closedThroughMs = endMs
}

// Log is the HdrHistogram interval log of a series (false when there is no such series).
func (s *Sampler) Log(name, comment string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, se := range s.series {
		if se.name != name {
			continue
		}
		var out bytes.Buffer
		w := hdrhistogram.NewHistogramLogWriter(&out)
		w.SetBaseTime(s.baseTimeMs)
		if s.droppedPeriods > 0 {
			comment += fmt.Sprintf(", oldest %d periods dropped", s.droppedPeriods)
		}
		_ = w.OutputComment(comment)
		_ = w.OutputLogFormatVersion()
		_ = w.OutputStartTime(s.baseTimeMs)
		_ = w.OutputBaseTime(s.baseTimeMs)
		_ = w.OutputLegend()
		for _, l := range se.lines {
			out.WriteString(l)
		}
		return out.String(), true
	}
	return "", false
}

// Totals: requests in closed periods (the first series), the last closed period of each series, values clamped to
// the histogram's range, and records that came after their period closed.
func (s *Sampler) Totals() (requests int64, last map[string]Summary, clamped, late int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	last = map[string]Summary{}
	for _, se := range s.series {
		last[se.name] = se.last
	}
	if len(s.series) > 0 {
		requests = s.series[0].total
	}
	return requests, last, s.clamped, s.late
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
