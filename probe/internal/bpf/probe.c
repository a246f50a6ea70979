//go:build ignore

// Times each HTTP/1.1 request of one server from the kernel's socket tracepoints (BTF raw tracepoints, tp_btf: the
// only hooks these kernels allow besides fentry, which is refused without CAP_SYS_ADMIN). Per accepted connection of
// the target, socket storage holds a small state machine; a finished request leaves as one record through a ring
// buffer. docs/probe.md explains the state machine and what it cannot see.

#include "core.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define AF_INET 2
#define AF_INET6 10
#define IPPROTO_TCP 6
#define TCP_ESTABLISHED 1
#define TCP_CLOSE 7
#define TCP_CLOSE_WAIT 8
#define TCP_LISTEN 10
#define MSG_PEEK 2

// The target, set before loading (cilium/ebpf's VariableSpec.Set).
volatile const __u16 target_port = 0;
volatile const __u32 target_addr4 = 0;    // network order; 0 = any IPv4 address
volatile const __u32 target_addr6[4] = {}; // network order
volatile const __u8 target_any_addr = 1;  // 1: the port alone selects (a dedicated network namespace or host)
volatile const __u32 target_netns = 0;    // inode of the network namespace; 0 = any
// Wake the reader only once this much is waiting: a wake-up per record cost microseconds per request; the reader
// also drains the ring on its own clock (every few milliseconds).
volatile const __u64 wakeup_bytes = 1 << 16;

enum state { IDLE = 0, READING = 1, WRITING = 2 };

struct conn {
	__u64 pending_arrive; // first bytes of the next request arrived (softirq), 0 when none
	__u64 arrive;         // this request's bytes arrived
	__u64 first_read;     // the server's first read of this request
	__u64 last_write;     // the server's last write of its response so far
	__u32 state;
	__u32 writes;
	__u32 peer_left;      // a request was taken up after the client's FIN: the client had given up on it
	__u32 pad;
};

struct record {
	__u64 end_ns;       // last response byte written, CLOCK_MONOTONIC
	__u64 service_ns;   // first read -> last write
	__u64 residence_ns; // bytes arrived -> last write
	__u8 peer[16];      // the client's address, IPv6 or IPv4-mapped (::ffff:a.b.c.d), network order
};

// Force the record type into BTF so bpf2go generates its Go twin.
const struct record *unused_record __attribute__((unused));

enum counter {
	EMITTED = 0,      // records submitted to the ring
	DROPPED,          // records lost: the ring was full
	NO_STORAGE,       // events lost: no socket storage could be created
	ORPHAN_WRITE,     // a write on an idle connection (opened before the probe, or a 100-continue)
	ABANDONED,        // a request read and never answered (connection closed or reset first)
	NEVER_READ,       // a request whose bytes arrived and were never read (connection closed or reset first)
	READ_AFTER_PEER_CLOSED, // a request read after its client had closed its side (it had given up: a timeout)
	COUNTERS,
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct conn);
} conns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); // resized at load time (--ring-bytes)
} events SEC(".maps");

// Where flush_settled stops: responses whose last write is at or before this (CLOCK_MONOTONIC) are ended. Set by the
// reader before each walk.
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} settled_before SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *value = bpf_map_lookup_elem(&counters, &which);
	if (value)
		*value += 1; // per-CPU: no atomic needed
}

// Is this socket an accepted TCP connection of the target server? First thing every program asks: the hooks fire
// for every socket of the machine.
static __always_inline int ours(const struct sock *sk)
{
	if (sk->__sk_common.skc_num != target_port)
		return 0;
	if (sk->__sk_common.skc_state == TCP_LISTEN)
		return 0;
	if (sk->sk_protocol != IPPROTO_TCP)
		return 0;
	unsigned short family = sk->__sk_common.skc_family;
	if (family != AF_INET && family != AF_INET6)
		return 0;
	if (target_netns && sk->__sk_common.skc_net.net->ns.inum != target_netns)
		return 0;
	if (target_any_addr)
		return 1;
	// An AF_INET6 socket of an IPv4 peer (v4-mapped) keeps the IPv4 address in skc_rcv_saddr too.
	if (target_addr4 && sk->__sk_common.skc_rcv_saddr == target_addr4)
		return 1;
	if (family == AF_INET6) {
		for (int i = 0; i < 4; i++)
			if (sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[i] != target_addr6[i])
				return 0;
		return !target_addr4;
	}
	return 0;
}

// The target connection's state, created on its first event; NULL for every other socket. Once a connection is reset
// or closed with unread bytes, the kernel releases its port before the last events (skc_num reads 0): its storage
// alone still says it is ours.
static __always_inline struct conn *conn_of(const struct sock *sk)
{
	if (!ours(sk))
		return bpf_sk_storage_get(&conns, (void *)sk, 0, 0);
	struct conn *c = bpf_sk_storage_get(&conns, (void *)sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!c)
		count(NO_STORAGE);
	return c;
}

// The client's address, as an IPv6 address: an IPv4 peer as ::ffff:a.b.c.d.
static __always_inline void peer_of(const struct sock *sk, __u8 *peer)
{
	if (sk->__sk_common.skc_family == AF_INET6) {
		__builtin_memcpy(peer, (const void *)sk->__sk_common.skc_v6_daddr.in6_u.u6_addr8, 16);
		return;
	}
	__u32 v4 = sk->__sk_common.skc_daddr;
	__builtin_memset(peer, 0, 10);
	peer[10] = 0xff;
	peer[11] = 0xff;
	__builtin_memcpy(peer + 12, &v4, 4);
}

// The response is complete: one record, then the connection waits for its next request. The server's read (process
// context) and the period's walk (the reader's thread, maybe on another CPU) can both see it complete at once: the
// compare-and-swap on the state lets exactly one of them emit the record.
static __always_inline void finish(const struct sock *sk, struct conn *c)
{
	__u64 last_write = c->last_write, first_read = c->first_read, arrive = c->arrive;
	if (!__sync_bool_compare_and_swap(&c->state, WRITING, IDLE))
		return;
	c->writes = 0;
	struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(DROPPED);
		return;
	}
	r->end_ns = last_write;
	r->service_ns = last_write - first_read;
	r->residence_ns = last_write - arrive;
	peer_of(sk, r->peer);
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	count(EMITTED);
}

static __always_inline void reset(struct conn *c)
{
	if (c->state == READING && !c->peer_left)
		count(ABANDONED); // one read after the client left is counted as such already
	else if (c->state == IDLE && c->pending_arrive)
		count(NEVER_READ);
	c->state = IDLE;
	c->writes = 0;
	c->pending_arrive = 0;
	c->peer_left = 0;
}

// Bytes arrived (softirq, on whichever CPU took the packet). Only the first arrival of a request counts: later
// segments of a request being read are ignored, and bytes of the next request arriving during the response are kept
// for it. The arrival ends nothing: a client may receive a response written in parts and send its next request
// before the server's last write has returned to its tracepoint (on loopback, within that write), so the response
// ends at the server's next read, its close, or the period's walk, each after its last write. The peer's FIN (the
// socket already in CLOSE_WAIT) is no arrival of a request: bytes sent with it arrive as the server reads them.
SEC("tp_btf/sk_data_ready")
int BPF_PROG(on_data_ready, const struct sock *sk)
{
	struct conn *c = conn_of(sk);
	if (!c)
		return 0;
	if (sk->__sk_common.skc_state == TCP_CLOSE_WAIT)
		return 0;
	if (c->state != READING)
		__sync_val_compare_and_swap(&c->pending_arrive, 0, bpf_ktime_get_ns());
	return 0;
}

// A read returned. While writing, any read (even one that finds nothing) means the response is complete: HTTP/1.1
// servers read the connection again only once they have answered. A read that returns bytes while idle starts a
// request.
SEC("tp_btf/sock_recv_length")
int BPF_PROG(on_recv, struct sock *sk, int ret, int flags)
{
	if (flags & MSG_PEEK)
		return 0;
	struct conn *c = conn_of(sk);
	if (!c)
		return 0;
	if (c->state == WRITING)
		finish(sk, c);
	if (ret > 0) {
		if (c->state == IDLE) {
			__u64 now = bpf_ktime_get_ns();
			__u64 arrived = __sync_lock_test_and_set(&c->pending_arrive, 0);
			c->arrive = arrived && arrived <= now ? arrived : now;
			c->first_read = now;
			c->state = READING;
			if (sk->__sk_common.skc_state == TCP_CLOSE_WAIT) {
				c->peer_left = 1;
				count(READ_AFTER_PEER_CLOSED);
			}
		}
	} else if (ret == 0 || (ret != -11 /* EAGAIN */ && ret != -4 /* EINTR */)) {
		reset(c); // end of stream or a hard error
	}
	return 0;
}

// A write returned: the response (so far) ends here.
SEC("tp_btf/sock_send_length")
int BPF_PROG(on_send, struct sock *sk, int ret, int flags)
{
	if (ret <= 0)
		return 0;
	struct conn *c = conn_of(sk);
	if (!c)
		return 0;
	if (c->state == IDLE) {
		// on a connection already reset (a response to a client that left: on loopback its reset arrives within
		// the write, before this hook) the write is that request's, counted when it was read
		if (sk->__sk_common.skc_state != TCP_CLOSE)
			count(ORPHAN_WRITE);
		return 0;
	}
	c->last_write = bpf_ktime_get_ns();
	c->writes += 1;
	// from reading only: a response the walk ended meanwhile (state idle) is not brought back to life by its late write
	__sync_val_compare_and_swap(&c->state, READING, WRITING);
	return 0;
}

// The connection leaves the established states: a response written before the close (Connection: close) is
// complete; a request read and not answered is abandoned; one that arrived and was never read is counted so. The
// peer's FIN alone (ESTABLISHED to CLOSE_WAIT) ends nothing: the server may still write the rest of its response, and
// its next read or its close ends it.
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(on_state, const struct sock *sk, const int oldstate, const int newstate)
{
	if (oldstate != TCP_ESTABLISHED && oldstate != TCP_CLOSE_WAIT)
		return 0;
	if (newstate == TCP_ESTABLISHED || (oldstate == TCP_ESTABLISHED && newstate == TCP_CLOSE_WAIT))
		return 0;
	// by its storage, not its port: a move to CLOSE releases the port first
	struct conn *c = bpf_sk_storage_get(&conns, (void *)sk, 0, 0);
	if (!c)
		return 0;
	if (c->state == WRITING)
		finish(sk, c);
	reset(c); // a next request that arrived during the response was never read
	return 0;
}

// Walked by the reader before it closes a period: a response whose last write is in that period and whose connection
// has seen nothing since (a server that reads again only once the next request arrives, on a connection the client
// leaves idle) is complete by now, and ends at its last write. Without this walk its record would wait for the
// connection's next request, after its period closed. A response still being written in parts further apart than the
// period's grace is cut at its last write so far; its later writes count as orphan writes.
SEC("iter/bpf_sk_storage_map")
int flush_settled(struct bpf_iter__bpf_sk_storage_map *ctx)
{
	struct sock *sk = ctx->sk;
	struct conn *c = ctx->value;
	if (!sk || !c)
		return 0;
	__u32 zero = 0;
	__u64 *before = bpf_map_lookup_elem(&settled_before, &zero);
	if (before && c->state == WRITING && c->last_write <= *before)
		finish(sk, c);
	return 0;
}
