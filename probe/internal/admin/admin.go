// Package admin serves the agent contract (docs/server-contract.md) for a server the probe measures: the engine
// reads the probe exactly as it reads an in-process agent.
package admin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Paths and series of the contract (contract/…/AgentContract.java).
const (
	Healthz    = "/healthz"
	Metrics    = "/metrics"
	Info       = "/pacer/v1/info"
	Histograms = "/pacer/v1/histograms"
	Resources  = "/pacer/v1/resources"
	Clock      = "/pacer/v1/clock"
)

// Source is what the admin server shows.
type Source interface {
	// Log is the interval log of a series ("" = the first); false when there is no such series.
	Log(series string) (string, bool)
	SeriesNames() []string
	// Info is the /pacer/v1/info document.
	Info() any
	// Resources is the /pacer/v1/resources document; false when the server's process is not known (404).
	Resources() (any, bool)
}

// Health is 503 with a reason until Ready, and again after Fail.
type Health struct {
	state atomic.Pointer[string] // nil: ready
}

func NewHealth(reason string) *Health {
	h := &Health{}
	h.state.Store(&reason)
	return h
}

func (h *Health) Ready()             { h.state.Store(nil) }
func (h *Health) Fail(reason string) { h.state.Store(&reason) }
func (h *Health) Reason() (string, bool) {
	if r := h.state.Load(); r != nil {
		return *r, false
	}
	return "", true
}

// Handler serves the contract's paths.
func Handler(source Source, health *Health, registry *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(Healthz, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if reason, ok := health.Reason(); !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, reason)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle(Metrics, promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	mux.HandleFunc(Info, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, source.Info())
	})
	// the node's wall clock, read as late as possible: the orchestrator brackets the call with its own (AgentClock)
	mux.HandleFunc(Clock, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]int64{"epochMicros": time.Now().UnixMicro()})
	})
	mux.HandleFunc(Resources, func(w http.ResponseWriter, r *http.Request) {
		use, ok := source.Resources()
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{
				"error": "the probe does not know the server's process (no --pid), so it samples none of its resources"})
			return
		}
		writeJSON(w, http.StatusOK, use)
	})
	mux.HandleFunc(Histograms, func(w http.ResponseWriter, r *http.Request) {
		series := r.URL.Query().Get("series")
		log, ok := source.Log(series)
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{
				"error": fmt.Sprintf("no histogram series '%s'; series: %v", series, source.SeriesNames())})
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=us-ascii")
		fmt.Fprint(w, log)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(body)
}
