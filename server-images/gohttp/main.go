// pacer-gohttp: a peer server for pacer's comparisons, Go's net/http with nothing added. It has no pacer agent: the
// kernel probe measures it (spec.server.measure: probe).
//
//	pacer-gohttp --port=8080
//	pacer-gohttp --port=8443 --tls-cert=tls.crt --tls-key=tls.key   # https, h2 and HTTP/1.1 by ALPN
//
// Over https (the certificate and key in PEM, from the flags or from PACER_TLS_CERT and PACER_TLS_KEY, which pacer sets) it
// serves HTTP/2 to clients that ask for it by ALPN and HTTP/1.1 to the others, as net/http does by itself.
//
// GET / answers "ok" (the payload of Chappe's shoot-out), any other path "Hello, World!"; any path takes
// ?sleepMicros=N (wait N µs before answering, as pacer's Java servers do) and ?bytes=N (a body of N bytes).
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	port := flag.Int("port", envPort(), "HTTP port (default: env PORT, else 8080)")
	certificate := flag.String("tls-cert", os.Getenv("PACER_TLS_CERT"), "https: the certificate chain, PEM (default: env PACER_TLS_CERT)")
	key := flag.String("tls-key", os.Getenv("PACER_TLS_KEY"), "https: its private key, PEM (default: env PACER_TLS_KEY)")
	flag.Parse()
	if (*certificate == "") != (*key == "") {
		log.Fatalf("pacer-gohttp: https needs both --tls-cert and --tls-key (or PACER_TLS_CERT and PACER_TLS_KEY)")
	}
	body, root := []byte("Hello, World!"), []byte("ok")
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if us, err := strconv.Atoi(q.Get("sleepMicros")); err == nil && us > 0 {
			time.Sleep(time.Duration(us) * time.Microsecond)
		}
		w.Header().Set("Content-Type", "text/plain")
		if n, err := strconv.Atoi(q.Get("bytes")); err == nil && n >= 0 && n <= 1<<24 {
			w.Write([]byte(strings.Repeat("x", n)))
			return
		}
		if r.URL.Path == "/" {
			w.Write(root)
			return
		}
		w.Write(body)
	})
	addr := fmt.Sprintf(":%d", *port)
	server := &http.Server{Addr: addr, Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	var err error
	if *certificate != "" {
		log.Printf("pacer-gohttp listening (https: h2, http/1.1) on %s", addr)
		err = server.ListenAndServeTLS(*certificate, *key)
	} else {
		log.Printf("pacer-gohttp listening on %s", addr)
		err = server.ListenAndServe()
	}
	if err != nil {
		log.Fatalf("pacer-gohttp: cannot start: %v", err)
	}
}

func envPort() int {
	if p, err := strconv.Atoi(os.Getenv("PORT")); err == nil {
		return p
	}
	return 8080
}
