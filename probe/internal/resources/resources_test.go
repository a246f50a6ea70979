package resources

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
)

// sampledChild starts a shell running script in a process group of its own, killed with every process it started
// when the test ends, and samples it in 500 ms periods from now.
func sampledChild(t *testing.T, script string) (*exec.Cmd, *Sampler, int64) {
	child := exec.Command("sh", "-c", script)
	child.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-child.Process.Pid, syscall.SIGKILL); _ = child.Wait() })
	start := time.Now().UnixMilli()
	s, err := New(child.Process.Pid, 500, 1, start)
	if err != nil {
		t.Fatal(err)
	}
	return child, s, start
}

// A busy child process: its CPU shows in the periods it ran, and its memory is read.
func TestABusyProcessShowsItsCPUAndMemory(t *testing.T) {
	busy, s, start := sampledChild(t, "timeout --foreground 60 sh -c 'while :; do :; done'")
	time.Sleep(600 * time.Millisecond)
	if err := s.Close(start + 600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	if err := s.Close(start + 1200); err != nil {
		t.Fatal(err)
	}
	use := s.Use()
	if use.Pid != busy.Process.Pid || use.PeriodMillis != 500 || len(use.Samples) != 2 {
		t.Fatalf("unexpected document %+v", use)
	}
	var cpu int64
	for _, sample := range use.Samples {
		cpu += sample.CPUNanos
		if sample.RSSBytes <= 0 || sample.PeakRSSBytes < sample.RSSBytes {
			t.Errorf("memory of %+v", sample)
		}
		// a spinning process alone on an idle CPU may never be switched out: 0 new slices is right for it
		if sample.RunQueueWaitNanos == nil || *sample.RunQueueWaitNanos < 0 || sample.RunSlices == nil || *sample.RunSlices < 0 {
			t.Errorf("schedstat of %+v: wait %s, slices %s", sample, show(sample.RunQueueWaitNanos), show(sample.RunSlices))
		}
	}
	// 1.2 s of a spinning shell, on whatever share of a CPU it got: well above nothing
	if cpu < int64(300*time.Millisecond) {
		t.Errorf("a spinning process used %v of CPU in 1.2 s", time.Duration(cpu))
	}
	if use.Samples[1].StartEpochMs != use.Samples[0].EndEpochMs {
		t.Errorf("periods are not contiguous: %+v", use.Samples)
	}
	if os.Geteuid() == 0 && !use.PeakResets {
		t.Error("root could not reset the child's high-water mark")
	}
	busy.Process.Kill()
	busy.Wait()
	if err := s.Close(start + 1800); err == nil {
		t.Error("closing a period of a process that is gone succeeded")
	}
}

// A server of several processes (nginx's master and workers): an idle parent and a spinning child. The child's CPU and
// memory are the server's, found by the sampler though it knows only the parent's pid.
func TestTheServersChildProcessesAreItsFootprint(t *testing.T) {
	// the loop is bounded too: nothing outlives the test, even killed
	parent, s, start := sampledChild(t, "timeout --foreground 60 sh -c 'while :; do :; done' & wait")
	var children []int // the bounding timeout and the loop under it
	for deadline := time.Now().Add(5 * time.Second); len(children) < 2 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		children = s.tree()[1:]
	}
	if len(children) < 2 {
		t.Fatalf("the parent's descendants never showed in its tree: %v", children)
	}
	time.Sleep(300 * time.Millisecond)
	// read before the period closes, from where the sampler began with each: the sample cannot hold less
	var childCPU int64
	for _, child := range children {
		childCPU += cpuOf(t, child) - int64(s.lastCPU[child])
	}
	parentRSS := rssOf(t, parent.Process.Pid)
	if err := s.Close(start + 600); err != nil {
		t.Fatal(err)
	}
	sample := s.Use().Samples[0]
	if childCPU <= 0 || sample.CPUNanos < childCPU {
		t.Errorf("the period's CPU %v does not hold its descendants' %v", time.Duration(sample.CPUNanos), time.Duration(childCPU))
	}
	if sample.RSSBytes <= parentRSS {
		t.Errorf("the period's RSS %d is not more than the idle parent's alone, %d", sample.RSSBytes, parentRSS)
	}
}

func cpuOf(t *testing.T, pid int) int64 {
	stat, err := mustProc(t, pid).Stat()
	if err != nil {
		t.Fatal(err)
	}
	return int64(stat.CPUTime() * float64(time.Second))
}

func rssOf(t *testing.T, pid int) int64 {
	status, err := mustProc(t, pid).NewStatus()
	if err != nil {
		t.Fatal(err)
	}
	return int64(status.VmRSS)
}

func mustProc(t *testing.T, pid int) procfs.Proc {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		t.Fatal(err)
	}
	return proc
}

func show(figure *int64) string {
	if figure == nil {
		return "none"
	}
	return strconv.FormatInt(*figure, 10)
}

// A process that sleeps and wakes is switched in at every wake-up: its slices count them.
func TestAWakingProcessShowsItsRunSlices(t *testing.T) {
	_, s, start := sampledChild(t, "while :; do sleep 0.02; done")
	time.Sleep(500 * time.Millisecond)
	if err := s.Close(start + 500); err != nil {
		t.Fatal(err)
	}
	sample := s.Use().Samples[0]
	// the shell wakes each time its sleep ends, about 25 times in the period; some may be missed on a loaded machine
	if sample.RunSlices == nil {
		t.Fatal("no schedstat for a live process")
	}
	if *sample.RunSlices < 5 {
		t.Errorf("a process waking every 20 ms ran %d slices in 500 ms", *sample.RunSlices)
	}
}

// The JSON is the contract's: the golden file the Java side pins decodes and encodes back field for field.
func TestTheDocumentIsTheContracts(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("..", "..", "..", "contract", "src", "test", "resources", "golden", "resources.json"))
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(golden, &generic); err != nil {
		t.Fatal(err)
	}
	// the Go document has no collector figures and no stalls: drop them from the golden before comparing
	for _, sample := range generic["samples"].([]any) {
		delete(sample.(map[string]any), "gcPauseMillis")
		delete(sample.(map[string]any), "gcCount")
		delete(sample.(map[string]any), "maxHiccupMicros")
	}
	want, _ := json.Marshal(generic)
	var use Use
	if err := json.Unmarshal(golden, &use); err != nil {
		t.Fatal(err)
	}
	encoded, _ := json.Marshal(use)
	var roundTrip map[string]any
	_ = json.Unmarshal(encoded, &roundTrip)
	got, _ := json.Marshal(roundTrip)
	if !bytes.Equal(got, want) {
		t.Errorf("the Go document differs from the contract's:\n got %s\nwant %s", got, want)
	}
}
