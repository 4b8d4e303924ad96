package sandbox

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"
)

// testNetArg makes the test binary a tiny network client for commands run
// in the sandbox, so the network tests need no curl or nc:
//
//	tcp ADDR       connect, print "connected"
//	udp ADDR       send one datagram, print "sent"
//	loopback       listen on 127.0.0.1 and connect to it, print "loopback ok"
//	unix PATH      connect to a Unix socket (@name: abstract), print "connected"
//	alloc N        allocate and touch N bytes, print "allocated"
const testNetArg = "__loupe-test-net"

// testModes are more modes of testNetArg, registered by platform-specific
// test files.
var testModes = map[string]func(args []string) int{}

func TestMain(m *testing.M) {
	// Confined runs re-execute this test binary as the helper.
	MaybeRunHelper()
	if len(os.Args) > 2 && os.Args[1] == testNetArg {
		os.Exit(testNet(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func testNet(args []string) int {
	fail := func(err error) int {
		fmt.Println("net error:", err)
		return 1
	}
	switch args[0] {
	case "tcp":
		c, err := net.DialTimeout("tcp", args[1], 2*time.Second)
		if err != nil {
			return fail(err)
		}
		c.Close()
		fmt.Println("connected")
	case "udp":
		c, err := net.Dial("udp", args[1])
		if err != nil {
			return fail(err)
		}
		if _, err := c.Write([]byte("ping")); err != nil {
			return fail(err)
		}
		c.Close()
		fmt.Println("sent")
	case "unix":
		c, err := net.DialTimeout("unix", args[1], 2*time.Second)
		if err != nil {
			return fail(err)
		}
		c.Close()
		fmt.Println("connected")
	case "alloc":
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return fail(err)
		}
		b := make([]byte, n)
		for i := 0; i < n; i += 4096 {
			b[i] = 1
		}
		fmt.Println("allocated", len(b))
	case "loopback":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fail(err)
		}
		defer ln.Close()
		go func() {
			if c, err := ln.Accept(); err == nil {
				c.Close()
			}
		}()
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 2*time.Second)
		if err != nil {
			return fail(err)
		}
		c.Close()
		fmt.Println("loopback ok")
	default:
		if f, ok := testModes[args[0]]; ok {
			return f(args[1:])
		}
		return fail(fmt.Errorf("unknown mode %q", args[0]))
	}
	return 0
}
