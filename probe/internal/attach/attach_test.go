package attach

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf/btf"
)

// These tests load the probe into the running kernel: they need root (CI runs as root) and skip, saying so, without.
func needKernel(t *testing.T) {
	t.Helper()
	if err := CheckPrivileges(); err != nil {
		t.Skip("not privileged to load BPF programs: ", err)
	}
}

// sleepServer answers on loopback after ?sleepMicros=N, like the pacer servers' workload parameter.
func sleepServer(t *testing.T) (netip.AddrPort, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if us, err := strconv.Atoi(r.URL.Query().Get("sleepMicros")); err == nil {
			time.Sleep(time.Duration(us) * time.Microsecond)
		}
		io.WriteString(w, "ok")
	})}
	go srv.Serve(ln)
	return netip.MustParseAddrPort(ln.Addr().String()), func() { srv.Close() }
}

// get sends n requests over keep-alive connections and reads every response.
func get(t *testing.T, addr netip.AddrPort, path string, n int) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	for i := 0; i < n; i++ {
		resp, err := client.Get(fmt.Sprintf("http://%s%s", addr, path))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// drain reads every record until none arrives for a while.
func drain(t *testing.T, p *Probe) []Record {
	t.Helper()
	var all []Record
	for {
		var r Record
		ok, err := p.Read(time.Now().Add(300*time.Millisecond), &r)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return all
		}
		all = append(all, r)
	}
}

func TestEveryRequestTimedWithResidenceAtLeastService(t *testing.T) {
	needKernel(t)
	addr, stop := sleepServer(t)
	defer stop()
	p, err := Attach(Target{Port: addr.Port(), Addr: addr.Addr()}, 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	get(t, addr, "/?sleepMicros=2000", 200)
	stop() // closes the connections: the last response of each is complete too
	records := drain(t, p)

	if len(records) != 200 {
		t.Fatalf("%d records for 200 requests", len(records))
	}
	var service []int64
	for _, r := range records {
		if r.ResidenceNs < r.ServiceNs {
			t.Fatalf("residence %d < service %d", r.ResidenceNs, r.ServiceNs)
		}
		if peer := netip.AddrFrom16(r.Peer); peer != netip.AddrFrom16(addr.Addr().As16()) {
			t.Fatalf("peer %s, want the client's loopback address IPv4-mapped", peer)
		}
		service = append(service, int64(r.ServiceNs))
	}
	sort.Slice(service, func(i, j int) bool { return service[i] < service[j] })
	p50 := time.Duration(service[len(service)/2])
	if p50 < 2*time.Millisecond || p50 > 3*time.Millisecond {
		t.Fatalf("service p50 %s for a 2 ms handler, want within [2 ms, 3 ms]", p50)
	}
	c, err := p.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if c.Emitted != 200 || c.Lost() != 0 {
		t.Fatalf("counters %+v, want 200 emitted and none lost", c)
	}
}

// An IPv6 client is told by its IPv6 address.
func TestAnIPv6ClientsAddressIsItsPeer(t *testing.T) {
	needKernel(t)
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback: ", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(ln)
	addr := netip.MustParseAddrPort(ln.Addr().String())
	p, err := Attach(Target{Port: addr.Port(), Addr: addr.Addr()}, 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	get(t, addr, "/", 5)
	srv.Close()
	records := drain(t, p)
	if len(records) != 5 {
		t.Fatalf("%d records for 5 requests", len(records))
	}
	for _, r := range records {
		if peer := netip.AddrFrom16(r.Peer); peer != netip.IPv6Loopback() {
			t.Fatalf("peer %s, want ::1", peer)
		}
	}
}

func TestOtherPortsAndAddressesAreNotSeen(t *testing.T) {
	needKernel(t)
	measured, stop := sleepServer(t)
	defer stop()
	other, stopOther := sleepServer(t)
	defer stopOther()
	// The measured server's port on another address: nothing of it may count either.
	p, err := Attach(Target{Port: measured.Port(), Addr: netip.MustParseAddr("127.0.0.2")}, 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	get(t, measured, "/", 20)
	get(t, other, "/", 20)
	if records := drain(t, p); len(records) != 0 {
		t.Fatalf("%d records from servers the probe does not target", len(records))
	}
}

func TestAFullRingIsCountedNeverHidden(t *testing.T) {
	needKernel(t)
	addr, stop := sleepServer(t)
	defer stop()
	p, err := Attach(Target{Port: addr.Port()}, os.Getpagesize(), false) // 4 KiB: about 128 records
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	get(t, addr, "/", 1000) // nobody reads the ring meanwhile
	stop()
	time.Sleep(200 * time.Millisecond)
	read := len(drain(t, p))
	c, _ := p.Counters()
	if c.Dropped == 0 || uint64(read) != c.Emitted || c.Emitted+c.Dropped != 1000 {
		t.Fatalf("read %d, counters %+v: want some dropped and emitted + dropped = 1000", read, c)
	}
}

func TestAKernelWithoutTheHooksIsRefusedByName(t *testing.T) {
	b, err := btf.NewBuilder([]btf.Type{&btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	old, err := btf.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	err = CheckKernel(old, "5.10.0-old")
	if err == nil || !strings.Contains(err.Error(), "kernel 5.10.0-old lacks the tracepoint(s) sk_data_ready, sock_recv_length") ||
		!strings.Contains(err.Error(), "Linux 6.3 or later") {
		t.Fatalf("error %v", err)
	}
	if kernel, err := btf.LoadKernelSpec(); err == nil {
		if err := CheckKernel(kernel, KernelRelease()); err != nil {
			t.Fatalf("this kernel has the hooks, yet: %v", err)
		}
	}
}

func TestRingSizeMustSuitTheKernel(t *testing.T) {
	for _, n := range []int{0, 1000, 3 << 20} {
		if err := ValidRingBytes(n); err == nil || !strings.Contains(err.Error(), "--ring-bytes") {
			t.Errorf("%d: %v", n, err)
		}
	}
	if err := ValidRingBytes(1 << 22); err != nil {
		t.Error(err)
	}
}

// The kernel's BPF run-time statistics are kernel-wide: the probe turns them on only when asked (its programs' run
// time then counts), and not otherwise.
func TestRunTimeStatisticsOnlyWhenAsked(t *testing.T) {
	needKernel(t)
	if b, err := os.ReadFile("/proc/sys/kernel/bpf_stats_enabled"); err != nil || strings.TrimSpace(string(b)) != "0" {
		t.Skip("kernel.bpf_stats_enabled is on (or unreadable): run time counts either way, nothing to tell apart")
	}
	runTime := func(asked bool) time.Duration {
		addr, stop := sleepServer(t)
		defer stop()
		p, err := Attach(Target{Port: addr.Port(), Addr: addr.Addr()}, 1<<20, asked)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		get(t, addr, "/", 200)
		d, _ := p.RunTime()
		return d
	}
	if d := runTime(false); d != 0 {
		t.Errorf("the probe's programs counted %v of run time without --bpf-run-time: the statistics were on", d)
	}
	if d := runTime(true); d <= 0 {
		t.Errorf("no run time counted with --bpf-run-time")
	}
}

// A client that sends its request and closes its side (its FIN arrives while the server writes the first part of the
// response): the response still runs to its last write, in one record, with no write left over; a request whose
// connection closes before any answer is abandoned.
func TestAPeersFinMidResponseEndsNothing(t *testing.T) {
	needKernel(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const gap = 20 * time.Millisecond
	served := make(chan error, 2)
	go func() {
		for i := 0; i < 2; i++ {
			conn, err := ln.Accept()
			if err != nil {
				served <- err
				return
			}
			go func(conn net.Conn, answer bool) {
				defer conn.Close()
				buf := make([]byte, 4096)
				if _, err := conn.Read(buf); err != nil {
					served <- err
					return
				}
				if !answer { // the second client's request is read and never answered
					time.Sleep(gap)
					served <- nil
					return
				}
				io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n")
				time.Sleep(gap) // the client's FIN arrives meanwhile
				io.WriteString(conn, "ok")
				_, err := conn.Read(buf) // end of stream
				if err != io.EOF {
					served <- fmt.Errorf("want end of stream, got %v", err)
					return
				}
				served <- nil
			}(conn, i == 0)
		}
	}()
	addr := netip.MustParseAddrPort(ln.Addr().String())
	p, err := Attach(Target{Port: addr.Port(), Addr: addr.Addr()}, 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	for i := 0; i < 2; i++ {
		conn, err := net.DialTCP("tcp", nil, net.TCPAddrFromAddrPort(addr))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if i == 0 { // the first part of the answer, then the FIN, while the server is between its two writes
			head := make([]byte, 0, 64)
			for !bytes.HasSuffix(head, []byte("\r\n\r\n")) {
				b := make([]byte, 1)
				if _, err := conn.Read(b); err != nil {
					t.Fatal(err)
				}
				head = append(head, b[0])
			}
		}
		conn.CloseWrite()
		io.Copy(io.Discard, conn)
		conn.Close()
		if err := <-served; err != nil {
			t.Fatal(err)
		}
	}
	records := drain(t, p)
	if len(records) != 1 {
		t.Fatalf("%d records, want 1: the answered request", len(records))
	}
	if time.Duration(records[0].ServiceNs) < gap {
		t.Fatalf("service %s, want at least the %s between the two writes", time.Duration(records[0].ServiceNs), gap)
	}
	c, err := p.Counters()
	if err != nil {
		t.Fatal(err)
	}
	// the second request is read and never answered: abandoned, or read after its client's FIN when the FIN came
	// first (the client half-closed right after sending it), counted once either way
	if c.OrphanWrites != 0 || c.Abandoned+c.ReadAfterPeerClosed != 1 {
		t.Fatalf("counters %+v, want no orphan write and 1 request abandoned or read after the client's FIN", c)
	}
}

// A server that reads again only once the next request comes (as a selector-driven server does) leaves its response
// open on a connection the client keeps idle. The walk before a period closes ends it at its last write; a response
// whose last write is after the walk's bound is left to its connection.
func TestAResponseOnAnIdleConnectionIsEndedByTheWalkAtItsLastWrite(t *testing.T) {
	needKernel(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const work = 5 * time.Millisecond
	release := make(chan struct{})
	defer close(release)
	// when the server's write returned: loopback hands the response to the client inside that write, so the client
	// may read it before the write's end is timed, and the client's clock after reading is no bound for that time
	wrote := make(chan int64, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		buf := make([]byte, 4096)
		if _, err := conn.Read(buf); err != nil {
			return
		}
		time.Sleep(work)
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		wrote <- MonotonicNanos()
		<-release // no read until the test ends: nothing on the connection says the response is complete
	}()
	addr := netip.MustParseAddrPort(ln.Addr().String())
	p, err := Attach(Target{Port: addr.Port(), Addr: addr.Addr()}, 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	conn, err := net.DialTCP("tcp", nil, net.TCPAddrFromAddrPort(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sent := MonotonicNanos()
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	answer := make([]byte, 0, 64)
	for !bytes.HasSuffix(answer, []byte("ok")) {
		b := make([]byte, 64)
		n, err := conn.Read(b)
		if err != nil {
			t.Fatal(err)
		}
		answer = append(answer, b[:n]...)
	}
	written := <-wrote

	if err := p.EndSettled(uint64(sent)); err != nil { // a bound before the response's last write
		t.Fatal(err)
	}
	if records := drain(t, p); len(records) != 0 {
		t.Fatalf("%d records from a walk bounded before the response's last write, want 0", len(records))
	}
	if err := p.EndSettled(uint64(written)); err != nil {
		t.Fatal(err)
	}
	records := drain(t, p)
	if len(records) != 1 {
		t.Fatalf("%d records after the walk, want the one response", len(records))
	}
	r := records[0]
	if int64(r.EndNs) < sent || int64(r.EndNs) > written {
		t.Fatalf("end %d outside [sent %d, written %d]: it must be the last write's time", r.EndNs, sent, written)
	}
	if time.Duration(r.ServiceNs) < work || int64(r.ServiceNs) > written-sent {
		t.Fatalf("service %s, want within [%s, %s]", time.Duration(r.ServiceNs), work, time.Duration(written-sent))
	}
	if err := p.EndSettled(uint64(MonotonicNanos())); err != nil {
		t.Fatal(err)
	}
	if again := drain(t, p); len(again) != 0 {
		t.Fatalf("%d records from a second walk, want 0: each response is ended once", len(again))
	}
}
