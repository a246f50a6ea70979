package main

import (
	"net/netip"
	"sort"
	"sync"
)

// maxPeerAddresses bounds the tally: a server benchmarked by a few client pods has a few peers; past this many
// distinct addresses the rest are counted together, so that a scan of the whole address space costs no memory.
const maxPeerAddresses = 1024

// peerRequests is the number of requests timed from one client address, since the probe started.
type peerRequests struct {
	Address  string `json:"address"`
	Requests uint64 `json:"requests"`
}

// peerTally counts the timed requests by the client's address (the record's peer): the evidence of where a server's
// load came from, on a cluster the client nodes' pod ranges.
type peerTally struct {
	mu       sync.Mutex
	requests map[[16]byte]uint64
	others   uint64 // requests from addresses beyond maxPeerAddresses
}

func (t *peerTally) add(peer [16]byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.requests == nil {
		t.requests = map[[16]byte]uint64{}
	}
	if _, known := t.requests[peer]; known || len(t.requests) < maxPeerAddresses {
		t.requests[peer]++
	} else {
		t.others++
	}
}

// top: the first n addresses by requests (most first, then by address), and the requests of every other address.
func (t *peerTally) top(n int) (peers []peerRequests, others uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	type entry struct {
		addr     netip.Addr
		requests uint64
	}
	all := make([]entry, 0, len(t.requests))
	for raw, requests := range t.requests {
		all = append(all, entry{netip.AddrFrom16(raw).Unmap(), requests})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].requests != all[j].requests {
			return all[i].requests > all[j].requests
		}
		return all[i].addr.Less(all[j].addr)
	})
	others = t.others
	peers = []peerRequests{}
	for i, e := range all {
		if i < n {
			peers = append(peers, peerRequests{e.addr.String(), e.requests})
		} else {
			others += e.requests
		}
	}
	return peers, others
}
