package server

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestListenAddressesAreParsedOrRefusedByName(t *testing.T) {
	tg, err := Parse("0.0.0.0:8080")
	if err != nil || tg.Port != 8080 || tg.String() != "*:8080" {
		t.Fatalf("%v %v", tg, err)
	}
	if tg, err = Parse("[::1]:80"); err != nil || tg.String() != "[::1]:80" {
		t.Fatalf("%v %v", tg, err)
	}
	for in, want := range map[string]string{"8080": "is not ADDR:PORT", "host:8080": "must be an IP address", "1.2.3.4:0": "port must be 1-65535"} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

func TestAPortNobodyListensOnIsAClearError(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	tg, _ := Parse(addr)
	err := WaitAccepting(context.Background(), tg, 300*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), "nothing listens on "+addr) {
		t.Fatalf("%v", err)
	}
}

func TestAServerThatExitsIsAClearError(t *testing.T) {
	cmd := exec.Command("sleep", "0.2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	p, err := ReadProcess(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := Parse("127.0.0.1:1")
	err = WaitAccepting(context.Background(), tg, 10*time.Second, p)
	if err == nil || !strings.Contains(err.Error(), "exited before it listened on port 1") {
		t.Fatalf("%v", err)
	}
}

func TestAListeningServerIsFoundInItsNamespace(t *testing.T) {
	cmd := exec.Command("python3", "-c", "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(5)")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skip("no python3: ", err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 16)
	n, _ := out.Read(buf)
	p, err := ReadProcess(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := Parse("127.0.0.1:" + strings.TrimSpace(string(buf[:n])))
	if err := WaitAccepting(context.Background(), tg, 2*time.Second, p); err != nil {
		t.Fatal(err)
	}
	if p.CpusetSize < 1 || p.NetnsInode == 0 {
		t.Fatalf("%+v", p)
	}
}
