// pacer-probe measures one HTTP/1.1 server from the kernel and serves what it measured as pacer's agent contract, so
// the engine treats it as the server's agent. It times every request of the server's accepted connections:
//
//	service:   first request byte read by the server → last response byte written
//	residence: request bytes arrived in the socket  → last response byte written
//
// Usage (root, or CAP_BPF and CAP_PERFMON):
//
//	pacer-probe --listen=ADDR:PORT [--pid=N] [--netns=/proc/N/ns/net] [--admin-port=9090] [--sample-period-ms=1000]
//
// docs/probe.md explains what it measures, what it cannot, and its cost.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cilium/ebpf/btf"
	"github.com/prometheus/client_golang/prometheus"

	"dev.pacer/probe/internal/admin"
	"dev.pacer/probe/internal/attach"
	"dev.pacer/probe/internal/period"
	"dev.pacer/probe/internal/resources"
	"dev.pacer/probe/internal/server"
)

// Version is set at build time (-ldflags "-X main.Version=…").
var Version = "dev"

const (
	seriesService   = "service"
	seriesResidence = "residence"
)

func main() {
	log.SetFlags(log.Ldate | log.Ltime | log.Lmicroseconds | log.LUTC)
	log.SetPrefix("pacer-probe: ")
	if err := run(); err != nil {
		log.Print(err)
		os.Exit(2)
	}
}

type options struct {
	listen       string
	pid          int
	netns        string
	adminAddress string
	adminPort    int
	periodMs     int64
	ringBytes    int
	runTimeStats bool
	readyFile    string
	listenWait   time.Duration
}

func parseOptions(args []string) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("pacer-probe", flag.ContinueOnError)
	fs.StringVar(&o.listen, "listen", "", "the server's listening ADDR:PORT (ADDR 0.0.0.0 or empty: any local address); required")
	fs.IntVar(&o.pid, "pid", 0, "the server's process: its network namespace, CPUs and user are read, and its exit ends the probe")
	fs.StringVar(&o.netns, "netns", "", "a network namespace file (/proc/N/ns/net, /run/netns/NAME) to which connections are limited")
	fs.StringVar(&o.adminAddress, "admin-address", "", "address of the agent contract's HTTP server (default: every address)")
	fs.IntVar(&o.adminPort, "admin-port", envInt("PACER_ADMIN_PORT", 9090), "port of the agent contract (env PACER_ADMIN_PORT; 0 picks a free one)")
	fs.Int64Var(&o.periodMs, "sample-period-ms", int64(envInt("PACER_SAMPLE_PERIOD_MS", 1000)), "histogram period (env PACER_SAMPLE_PERIOD_MS)")
	fs.IntVar(&o.ringBytes, "ring-bytes", 4<<20, "size of the kernel→probe ring buffer, a power of two (4 MiB holds ~130k requests)")
	fs.BoolVar(&o.runTimeStats, "bpf-run-time", false, "turn on the kernel's BPF run-time statistics for pacer_probe_bpf_run_seconds_total "+
		"(kernel-wide while the probe runs: every BPF program on the host pays for them)")
	fs.StringVar(&o.readyFile, "ready-file", os.Getenv("PACER_READY_FILE"), "once ready, write {\"adminPort\":N,\"appPort\":M} here (env PACER_READY_FILE)")
	fs.DurationVar(&o.listenWait, "listen-wait", 2*time.Minute, "how long to wait for the server to accept connections")
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if *version {
		fmt.Println(Version)
		os.Exit(0)
	}
	if o.listen == "" {
		return o, errors.New("--listen is required: the server's ADDR:PORT, e.g. --listen=0.0.0.0:8080")
	}
	if o.periodMs <= 0 {
		return o, fmt.Errorf("--sample-period-ms (PACER_SAMPLE_PERIOD_MS) must be at least 1, was %d", o.periodMs)
	}
	if o.adminPort < 0 || o.adminPort > 65535 {
		return o, fmt.Errorf("--admin-port (PACER_ADMIN_PORT) must be a port number (0 for a free one), was %d", o.adminPort)
	}
	return o, attach.ValidRingBytes(o.ringBytes)
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(name))); err == nil {
		return v
	}
	return def
}

func run() error {
	o, err := parseOptions(os.Args[1:])
	if err != nil {
		return err
	}
	tgt, err := server.Parse(o.listen)
	if err != nil {
		return err
	}
	var proc *server.Process
	if o.pid != 0 {
		if proc, err = server.ReadProcess(o.pid); err != nil {
			return err
		}
		tgt.NetnsInode = proc.NetnsInode
	}
	if o.netns != "" {
		if tgt.NetnsInode, err = server.NetnsInode(o.netns); err != nil {
			return err
		}
	}
	if err := attach.CheckPrivileges(); err != nil {
		return err
	}
	release := attach.KernelRelease()
	kernel, err := btf.LoadKernelSpec()
	if err != nil {
		return fmt.Errorf("kernel %s has no BTF (/sys/kernel/btf/vmlinux): the probe needs Linux %s or later built with CONFIG_DEBUG_INFO_BTF: %w",
			release, attach.MinimumKernel, err)
	}
	if err := attach.CheckKernel(kernel, release); err != nil {
		return err
	}
	probe, err := attach.Attach(tgt, o.ringBytes, o.runTimeStats)
	if err != nil {
		return err
	}
	defer probe.Close()
	start := time.Now()
	grace := o.periodMs / 5 // a record leaves the kernel once its response is complete, and reaches the reader later
	sampler := period.New([]string{seriesService, seriesResidence}, o.periodMs, grace, start.UnixMilli())
	health := admin.NewHealth("probe attached; waiting for " + tgt.String() + " to accept connections")
	m := &measured{target: tgt, server: proc, probe: probe, sampler: sampler, start: start, kernel: release, periodMs: o.periodMs}
	if proc != nil {
		if m.resources, err = resources.New(proc.Pid, o.periodMs, proc.CpusetSize, start.UnixMilli()); err != nil {
			return err
		}
	}

	registry := prometheus.NewRegistry()
	m.register(registry)
	ln, err := net.Listen("tcp", net.JoinHostPort(o.adminAddress, strconv.Itoa(o.adminPort)))
	if err != nil {
		return fmt.Errorf("the agent contract's port: %w", err)
	}
	adminPort := ln.Addr().(*net.TCPAddr).Port
	httpServer := &http.Server{Handler: admin.Handler(m, health, registry), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = httpServer.Serve(ln) }()
	log.Printf("attached to %s on kernel %s; agent contract on port %d", tgt, release, adminPort)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	failed := make(chan error, 1)
	go func() {
		if err := server.WaitAccepting(ctx, tgt, o.listenWait, proc); err != nil {
			failed <- err
			return
		}
		health.Ready()
		log.Printf("%s accepts connections: ready", tgt)
		if o.readyFile != "" {
			body := fmt.Sprintf("{\"adminPort\":%d,\"appPort\":%d}\n", adminPort, tgt.Port)
			if err := writeAtomically(o.readyFile, body); err != nil {
				failed <- err
				return
			}
		}
		if proc != nil {
			failed <- server.WaitExit(ctx, proc.Pid)
		}
	}()
	readErr := make(chan error, 1)
	go func() { readErr <- m.readLoop(ctx) }()
	if m.resources != nil {
		go m.resources.Run(ctx)
	}

	select {
	case <-ctx.Done():
		log.Print("stopping")
	case err := <-failed:
		if err != nil {
			health.Fail(err.Error())
			m.closeAll(time.Now())
			shutdown(httpServer)
			return err
		}
	case err := <-readErr:
		health.Fail("reading the ring buffer failed")
		return fmt.Errorf("reading the ring buffer: %w", err)
	}
	m.closeAll(time.Now())
	shutdown(httpServer)
	return nil
}

func shutdown(s *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.Shutdown(ctx)
}

func writeAtomically(path, body string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		return fmt.Errorf("writing the ready file: %w", err)
	}
	return os.Rename(tmp, path)
}

// maxPeersTold: the client addresses the info lists, at most (a run's client pods are fewer).
const maxPeersTold = 32

// measured joins the probe, its sampler and what is known of the server.
type measured struct {
	target   attach.Target
	server   *server.Process
	probe    *attach.Probe
	sampler  *period.Sampler
	start    time.Time
	kernel   string
	periodMs int64
	offsetNs atomic.Int64 // epoch nanoseconds − CLOCK_MONOTONIC nanoseconds, re-read at every tick of the read loop
	// held while a record is read and recorded, and while periods close (the read loop's, or a log request's): a
	// record read is in the sampler before its period closes
	closing sync.Mutex
	// resources samples the server's process; nil when its pid is not known (on Kubernetes)
	resources *resources.Sampler
	peers     peerTally
	// serviceSeconds: every request's service time, the run dashboard's heatmap; nil until registered
	serviceSeconds prometheus.Histogram
}

// latencyBucketsSeconds: the upper bounds of the server's latency histogram, the agent's pacer_processing_seconds' too
// (contract/src/test/resources/golden/latency-buckets-seconds.json), so that one heatmap shows either.
var latencyBucketsSeconds = []float64{0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// readLoop moves records into the sampler and closes periods on time, with or without traffic.
func (m *measured) readLoop(ctx context.Context) error {
	var seen attach.Counters // the kernel's counts already given to a period
	m.offsetNs.Store(clockOffsetNs())
	nextClose := time.Now()
	for ctx.Err() == nil {
		if err := m.readOne(nextClose); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if now := time.Now(); !now.Before(nextClose) {
			m.offsetNs.Store(clockOffsetNs())
			seen = m.countKernelLosses(now.UnixMilli(), seen)
			m.closeDue(now)
			nextClose = now.Add(time.Duration(max(m.periodMs/20, 5)) * time.Millisecond)
		}
	}
	return nil
}

// clockOffsetNs is epoch − CLOCK_MONOTONIC nanoseconds, the wall clock read between two monotonic readings: a
// preemption between the reads would shift every record until the next reading.
func clockOffsetNs() int64 {
	best := int64(math.MaxInt64)
	var offset int64
	for range 3 {
		before := attach.MonotonicNanos()
		wall := time.Now().UnixNano()
		after := attach.MonotonicNanos()
		if after-before < best {
			best, offset = after-before, wall-(before+after)/2
		}
	}
	return offset
}

// readOne moves the next record into the sampler, waiting until the deadline for one. Under the closing lock, so
// that a record read is in the sampler before any period closes.
func (m *measured) readOne(deadline time.Time) error {
	m.closing.Lock()
	defer m.closing.Unlock()
	var rec attach.Record
	ok, err := m.probe.Read(deadline, &rec)
	if ok {
		m.record(rec)
	}
	return err
}

func (m *measured) record(rec attach.Record) {
	m.sampler.Record(int64(rec.EndNs)+m.offsetNs.Load(), int64(rec.ServiceNs), int64(rec.ResidenceNs))
	m.peers.add(rec.Peer)
	if m.serviceSeconds != nil {
		m.serviceSeconds.Observe(float64(rec.ServiceNs) / 1e9)
	}
}

// closeDue closes the periods whose grace has passed. Responses still open in them, on connections the client left
// idle, are ended at their last write first, and their records read, so that none of them is late.
func (m *measured) closeDue(now time.Time) {
	m.closing.Lock()
	defer m.closing.Unlock()
	if endMs, ok := m.sampler.ClosingThrough(now.UnixMilli()); ok {
		m.endSettled(now, endMs*1_000_000-m.offsetNs.Load())
	}
	m.sampler.CloseDue(now.UnixMilli())
}

// closeAll closes every period, the last one at now, once the responses still open are ended.
func (m *measured) closeAll(now time.Time) {
	m.closing.Lock()
	defer m.closing.Unlock()
	m.endSettled(now, attach.MonotonicNanos())
	m.sampler.Close(now.UnixMilli())
}

// endSettled ends the responses still open whose last write is at or before beforeMonoNs and reads their records.
// Should the walk fail, they reach the sampler late, counted as such: the periods still close on time.
func (m *measured) endSettled(now time.Time, beforeMonoNs int64) {
	if err := m.probe.EndSettled(uint64(beforeMonoNs)); err != nil {
		log.Printf("ending the responses still open: %v", err)
		return
	}
	for { // what the walk ended is in the ring now: read it without waiting
		var rec attach.Record
		ok, err := m.probe.Read(now, &rec)
		if !ok || err != nil {
			return
		}
		m.record(rec)
	}
}

// countKernelLosses gives the kernel's counts since seen to the period holding nowMs; @return the counts now given.
func (m *measured) countKernelLosses(nowMs int64, seen attach.Counters) attach.Counters {
	c, err := m.probe.Counters()
	if err != nil {
		return seen // read again at the next tick: nothing is lost, only later
	}
	m.sampler.AddKernelLosses(nowMs, period.Losses{Dropped: int64(c.Lost() - seen.Lost()),
		OrphanWrites: int64(c.OrphanWrites - seen.OrphanWrites), Abandoned: int64(c.Abandoned - seen.Abandoned),
		NeverRead: int64(c.NeverRead - seen.NeverRead), ReadAfterPeerClosed: int64(c.ReadAfterPeerClosed - seen.ReadAfterPeerClosed)})
	return c
}

func (m *measured) Resources() (any, bool) {
	if m.resources == nil {
		return nil, false
	}
	return m.resources.Use(), true
}

func (m *measured) SeriesNames() []string { return []string{seriesService, seriesResidence} }

func (m *measured) Log(series string) (string, bool) {
	if series == "" {
		series = seriesService
	}
	m.closeDue(time.Now())
	return m.sampler.Log(series, fmt.Sprintf("pacer probe %s histograms of %s, values in nanoseconds, sample period %d ms",
		series, m.target, m.periodMs))
}

// info is /pacer/v1/info (contract AgentInfo, golden agent-info-probe.json): the measured server's process when
// known, the kernel, and what the probe lost.
type info struct {
	Role                string   `json:"role"`
	Version             string   `json:"version"`
	MeasuredBy          string   `json:"measuredBy"`
	Pid                 int      `json:"pid,omitempty"`
	Hostname            string   `json:"hostname"`
	UID                 *int     `json:"uid,omitempty"`
	Cpuset              string   `json:"cpuset,omitempty"`
	CpusetSize          int      `json:"cpusetSize,omitempty"`
	Kernel              string   `json:"kernel"`
	StartTimeEpochMs    int64    `json:"startTimeEpochMs"`
	SamplePeriodMs      int64    `json:"samplePeriodMs"`
	HistogramSeries     []string `json:"histogramSeries"`
	Listen              string   `json:"listen"`
	DroppedRecords      uint64   `json:"droppedRecords"`
	LateRecords         int64    `json:"lateRecords"`
	OrphanWrites        uint64   `json:"orphanWrites"`
	Abandoned           uint64   `json:"abandonedRequests"`
	NeverRead           uint64   `json:"neverReadRequests"`
	ReadAfterPeerClosed uint64   `json:"readAfterPeerClosed"`
	// LossesByPeriod: the periods that had any of the counts above, for the engine to judge the measured window alone.
	LossesByPeriod []period.Losses `json:"lossesByPeriod"`
	ProbePid       int             `json:"probePid"`
	// Peers: the requests timed per client address since the probe started, most first (where the load came from);
	// OtherPeerRequests: those of the addresses beyond the list.
	Peers             []peerRequests `json:"peers"`
	OtherPeerRequests uint64         `json:"otherPeerRequests"`
	// Host: the machine's CPU model, online CPUs and frequency governor, for the result's manifest.
	Host map[string]any `json:"host,omitempty"`
}

// hostFacts reads what the manifest says of the machine; what the kernel does not expose is left out.
func hostFacts() map[string]any {
	host := map[string]any{}
	if cpuinfo, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(cpuinfo), "\n") {
			if strings.HasPrefix(line, "model name") {
				host["cpuModel"] = strings.TrimSpace(line[strings.IndexByte(line, ':')+1:])
				break
			}
		}
	}
	if online, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		host["onlineCpus"] = server.CPUCount(strings.TrimSpace(string(online)))
	}
	if governor, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); err == nil {
		host["governor"] = strings.TrimSpace(string(governor))
	}
	return host
}

func (m *measured) Info() any {
	host, _ := os.Hostname()
	c, _ := m.probe.Counters()
	_, _, _, late := m.sampler.Totals()
	i := info{Role: "server", Version: Version, MeasuredBy: "probe", Hostname: host, Kernel: m.kernel,
		StartTimeEpochMs: m.start.UnixMilli(), SamplePeriodMs: m.periodMs, HistogramSeries: m.SeriesNames(),
		Listen: m.target.String(), DroppedRecords: c.Lost(), LateRecords: late, OrphanWrites: c.OrphanWrites,
		Abandoned: c.Abandoned, NeverRead: c.NeverRead, ReadAfterPeerClosed: c.ReadAfterPeerClosed, LossesByPeriod: m.sampler.LossesByPeriod(),
		ProbePid: os.Getpid(), Host: hostFacts()}
	i.Peers, i.OtherPeerRequests = m.peers.top(maxPeersTold)
	if m.server != nil {
		i.Pid, i.UID, i.Cpuset, i.CpusetSize = m.server.Pid, &m.server.UID, m.server.Cpuset, m.server.CpusetSize
		i.StartTimeEpochMs = m.server.StartEpochMs
	}
	return i
}

// register adds the probe's metrics, read when scraped.
func (m *measured) register(r *prometheus.Registry) {
	m.serviceSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "pacer_service_seconds",
		Help: "Server service time per request, first byte read to last byte written, at the socket (the kernel probe)", Buckets: latencyBucketsSeconds})
	r.MustRegister(m.serviceSeconds)
	server := prometheus.Labels{"role": "server"}
	counters := func() attach.Counters { c, _ := m.probe.Counters(); return c }
	r.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pacer_requests_total", ConstLabels: server,
			Help: "Requests in closed sample periods."}, func() float64 { n, _, _, _ := m.sampler.Totals(); return float64(n) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pacer_clamped_values_total", ConstLabels: server,
			Help: "Values outside the histograms' range, clamped."}, func() float64 { _, _, c, _ := m.sampler.Totals(); return float64(c) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pacer_probe_records_dropped_total",
			Help: "Requests the kernel side could not pass on (ring full, no socket storage, recursion)."},
			func() float64 { return float64(counters().Lost()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pacer_probe_records_late_total",
			Help: "Requests that reached user space after their period closed."},
			func() float64 { _, _, _, l := m.sampler.Totals(); return float64(l) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pacer_probe_orphan_writes_total",
			Help: "Writes on a connection with no request being read (opened before the probe, or 100-continue)."},
			func() float64 { return float64(counters().OrphanWrites) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pacer_probe_abandoned_requests_total",
			Help: "Requests read and never answered before the connection closed."},
			func() float64 { return float64(counters().Abandoned) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pacer_probe_never_read_requests_total",
			Help: "Requests whose bytes arrived and were never read before the connection closed or was reset."},
			func() float64 { return float64(counters().NeverRead) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pacer_probe_read_after_peer_closed_total",
			Help: "Requests read after their client had closed its side of the connection (it had given up on them)."},
			func() float64 { return float64(counters().ReadAfterPeerClosed) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pacer_probe_bpf_run_seconds_total",
			Help: "Time the kernel spent in the probe's BPF programs (with --bpf-run-time, or when kernel.bpf_stats_enabled is on)."},
			func() float64 { d, _ := m.probe.RunTime(); return d.Seconds() }),
	)
	for _, stat := range []string{"p50", "p99", "max"} {
		for _, series := range m.SeriesNames() {
			name := "pacer_period_latency_seconds"
			labels := prometheus.Labels{"role": "server", "stat": stat}
			if series != seriesService {
				name = "pacer_probe_residence_seconds"
			}
			r.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, ConstLabels: labels,
				Help: "The last closed sample period's latency (" + series + ")."}, func() float64 {
				_, last, _, _ := m.sampler.Totals()
				s := last[series]
				v := map[string]int64{"p50": s.P50Nanos, "p99": s.P99Nanos, "max": s.Max}[stat]
				return float64(v) / 1e9
			}))
		}
	}
}
