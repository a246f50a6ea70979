package main

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// The service histogram's buckets are the contract's, which the agent's processing histogram shares: one heatmap of
// the run dashboard shows either.
func TestServiceBucketsAreTheContractsOwn(t *testing.T) {
	raw, err := os.ReadFile("../../../contract/src/test/resources/golden/latency-buckets-seconds.json")
	if err != nil {
		t.Fatal(err)
	}
	var contract []float64
	if err := json.Unmarshal(raw, &contract); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(latencyBucketsSeconds, contract) {
		t.Fatalf("the probe's buckets %v, the contract's %v", latencyBucketsSeconds, contract)
	}
}
