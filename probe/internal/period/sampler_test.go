package period

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

const ms = int64(1_000_000)

// goldenLog is the probe's log format, read back by the engine's Java reader in
// engine/…/analysis/ProbeLogFormatTest (the same file): what one side writes, the other must read.
var goldenLog = filepath.Join("..", "..", "..", "contract", "src", "test", "resources", "golden", "probe-service.hlog")

// A run from 10:00:00.250: a partial first period, two full ones (one of them empty), a partial last one.
func sampled() *Sampler {
	start := int64(1_795_473_600_250)
	s := New([]string{"service", "residence"}, 1000, 200, start)
	s.Record((start+100)*ms, 50_000, 70_000)        // first period [.250, 01.000)
	s.Record((start+800)*ms, 60_000, 90_000)        // period [01, 02)
	s.Record((start+1700)*ms, 2_000_000, 2_500_000) // period [01, 02)
	s.CloseDue(start + 1750 + 200)                  // closes the first period only: [01, 02) ends at 02.000 + grace
	s.Record((start+2760)*ms, 1, 1)                 // period [03, 04): [02, 03) stays empty
	s.Close(start + 3250)
	return s
}

func TestPeriodsAreAlignedToWallClockMultiples(t *testing.T) {
	log, ok := sampled().Log("service", "pacer probe service histograms, values in nanoseconds")
	if !ok {
		t.Fatal("no service series")
	}
	var stamps []string
	for _, line := range strings.Split(log, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "\"") {
			f := strings.Split(line, ",")
			stamps = append(stamps, f[0]+"+"+f[1])
		}
	}
	// Base time is the whole second before the start: 10:00:00.000.
	want := []string{"0.250000+0.750000", "1.000000+1.000000", "2.000000+1.000000", "3.000000+0.500000"}
	if strings.Join(stamps, " ") != strings.Join(want, " ") {
		t.Fatalf("periods %v, want %v", stamps, want)
	}
}

func TestCountsPerSeriesAndLateRecords(t *testing.T) {
	s := sampled()
	s.Record(1_795_473_600_300*ms, 5, 5) // its period closed long ago
	requests, last, clamped, late := s.Totals()
	if requests != 4 || late != 1 || clamped != 0 {
		t.Fatalf("requests %d late %d clamped %d, want 4, 1, 0", requests, late, clamped)
	}
	if last["residence"].Count != 1 {
		t.Fatalf("last residence period %+v", last["residence"])
	}
}

func TestValuesOutOfRangeAreClampedAndCounted(t *testing.T) {
	s := New([]string{"service"}, 1000, 0, 0)
	s.Record(10*ms, -5)
	s.Record(20*ms, HighestTrackableNanos*2)
	s.Close(1000)
	requests, last, clamped, _ := s.Totals()
	if requests != 2 || clamped != 2 || last["service"].Max < HighestTrackableNanos*999/1000 {
		t.Fatalf("requests %d clamped %d max %d", requests, clamped, last["service"].Max)
	}
}

func TestUnknownSeries(t *testing.T) {
	if _, ok := sampled().Log("processing", ""); ok {
		t.Fatal("a series the probe does not have was served")
	}
}

func TestLogRoundTripsThroughHdrHistogram(t *testing.T) {
	log, _ := sampled().Log("service", "c")
	line := strings.Split(strings.TrimSpace(log), "\n")[6] // the second period
	payload := line[strings.LastIndex(line, ",")+1:]
	h, err := hdrhistogram.Decode([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != 2 || !h.ValuesAreEquivalent(h.Max(), 2_000_000) {
		t.Fatalf("decoded count %d max %d", h.TotalCount(), h.Max())
	}
}

// The golden file is shared with the Java reader's test; delete it to write it anew after an intended change.
func TestGoldenLog(t *testing.T) {
	log, _ := sampled().Log("service", "pacer probe service histograms, values in nanoseconds, sample period 1000 ms")
	want, err := os.ReadFile(goldenLog)
	if os.IsNotExist(err) {
		if err := os.WriteFile(goldenLog, []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Fatalf("wrote %s: review it and run again", goldenLog)
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != log {
		t.Fatalf("the log differs from %s:\n%s", goldenLog, log)
	}
}

// Losses land in their period: a late record in the period of its end (closed already), the kernel's counts in the
// period in which the reader saw them; periods without any are left out, and the list is oldest first.
func TestLossesAreCountedPerPeriod(t *testing.T) {
	start := int64(1_795_473_600_000)
	s := New([]string{"service"}, 1000, 200, start)
	s.AddKernelLosses(start+2500, Losses{Dropped: 3, NeverRead: 2, StartEpochMs: 42})
	s.AddKernelLosses(start+2900, Losses{ReadAfterPeerClosed: 1})
	s.AddKernelLosses(start+3100, Losses{})
	s.CloseDue(start + 1300)
	s.Record((start+900)*ms, 1000) // its period [00, 01) closed at 01.200
	s.AddKernelLosses(start+100, Losses{Abandoned: 4, OrphanWrites: 5})
	got := s.LossesByPeriod()
	want := []Losses{
		{StartEpochMs: start, Late: 1, Abandoned: 4, OrphanWrites: 5},
		{StartEpochMs: start + 2000, Dropped: 3, NeverRead: 2, ReadAfterPeerClosed: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("losses by period: %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("period %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, _, _, late := s.Totals(); late != 1 {
		t.Errorf("late total %d, want 1", late)
	}
}

// The reader ends the responses still open in the periods about to close: ClosingThrough names the last of them, as
// CloseDue would close them, and nothing once they are closed.
func TestClosingThroughIsTheLastPeriodCloseDueCloses(t *testing.T) {
	start := int64(1_795_473_600_250)
	s := New([]string{"service"}, 1000, 200, start)
	if _, ok := s.ClosingThrough(start + 900); ok {
		t.Fatal("the first period ends at 01.000 and its grace at 01.200: nothing closes at 01.150")
	}
	for _, c := range []struct{ nowMs, wantEnd int64 }{{start + 950, start + 750}, {start + 2960, start + 2750}} {
		end, ok := s.ClosingThrough(c.nowMs)
		if !ok || end != c.wantEnd {
			t.Fatalf("at %d: %d %v, want %d", c.nowMs, end, ok, c.wantEnd)
		}
	}
	s.CloseDue(start + 2960)
	if _, ok := s.ClosingThrough(start + 2960); ok {
		t.Fatal("every period due is closed already")
	}
	s.Record((start+2800)*ms, 7)
	if _, _, _, late := s.Totals(); late != 0 {
		t.Fatalf("a record in the open period [03, 04) counted late: %d", late)
	}
}
