package main

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"
)

// The probe's /pacer/v1/info is the contract's AgentInfo: the JSON the Java side pins in its golden file
// (contract/src/test/resources/golden/agent-info-probe.json). Built from the golden's own values, the probe's info
// must give every field of the golden under the same name, with the same value and JSON type; what the probe adds
// beyond it is listed here, so that a new field is a decision, not an accident.
func TestInfoMatchesTheContractsGoldenFile(t *testing.T) {
	raw, err := os.ReadFile("../../../contract/src/test/resources/golden/agent-info-probe.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]any
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	uid := 0
	built := info{Role: "server", Version: "0.1.0", MeasuredBy: "probe", Pid: 4242, Hostname: "node-1", UID: &uid, Cpuset: "0",
		CpusetSize: 1, Kernel: "6.1.0-27-amd64", StartTimeEpochMs: 1795355400000, SamplePeriodMs: 1000,
		HistogramSeries: (&measured{}).SeriesNames(), Listen: "0.0.0.0:8080", DroppedRecords: 0}
	encoded, err := json.Marshal(built)
	if err != nil {
		t.Fatal(err)
	}
	var probe map[string]any
	if err := json.Unmarshal(encoded, &probe); err != nil {
		t.Fatal(err)
	}
	for name, want := range golden {
		got, ok := probe[name]
		if !ok {
			t.Errorf("the probe's info has no %q (the contract's golden file has %v)", name, want)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: the probe gives %#v, the contract's golden file %#v", name, got, want)
		}
	}
	beyond := []string{}
	for name := range probe {
		if _, ok := golden[name]; !ok {
			beyond = append(beyond, name)
		}
	}
	sort.Strings(beyond)
	// the probe's own counters, read by AgentInfo as extra fields; host is left out when empty
	want := []string{"abandonedRequests", "lateRecords", "lossesByPeriod", "neverReadRequests", "orphanWrites", "otherPeerRequests", "peers", "probePid", "readAfterPeerClosed"}
	if !reflect.DeepEqual(beyond, want) {
		t.Errorf("fields beyond the contract's golden file: %v, want %v", beyond, want)
	}
}
