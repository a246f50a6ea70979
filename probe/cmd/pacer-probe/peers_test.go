package main

import (
	"net/netip"
	"reflect"
	"testing"
)

func peer(s string) [16]byte { return netip.MustParseAddr(s).As16() }

// IPv4 peers arrive IPv4-mapped (the record's form) and are told as IPv4; the most requests first; past n, the rest
// are one count.
func TestPeersAreToldByAddressMostRequestsFirst(t *testing.T) {
	var tally peerTally
	for range 3 {
		tally.add(peer("::ffff:10.245.1.7"))
	}
	tally.add(peer("fd00::2"))
	for range 2 {
		tally.add(peer("::ffff:10.245.2.4"))
	}
	got, others := tally.top(2)
	want := []peerRequests{{"10.245.1.7", 3}, {"10.245.2.4", 2}}
	if !reflect.DeepEqual(got, want) || others != 1 {
		t.Fatalf("top(2) = %v, others %d; want %v, others 1", got, others, want)
	}
}

// A flood of distinct addresses costs no more than maxPeerAddresses entries; every request is still counted.
func TestAddressesBeyondTheBoundAreCountedTogether(t *testing.T) {
	var tally peerTally
	for i := range maxPeerAddresses + 10 {
		tally.add(peer(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}).String()))
	}
	if len(tally.requests) != maxPeerAddresses || tally.others != 10 {
		t.Fatalf("%d addresses kept, %d others; want %d and 10", len(tally.requests), tally.others, maxPeerAddresses)
	}
	peers, others := tally.top(5)
	if len(peers) != 5 || others != maxPeerAddresses+10-5 {
		t.Fatalf("top(5): %d peers, %d others", len(peers), others)
	}
}
