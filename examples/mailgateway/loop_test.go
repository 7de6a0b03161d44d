package main

import (
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cturi/cturi/examples/mailgateway/relay"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentLoops: messages looping through one gateway at once hold
// a session a hop each and can together fill -max-connections; the
// gateway then refuses the next hop with 421 rather than let the loops
// wait on each other, so every sender gets an answer (554 for a loop that
// fitted, a transient failure for one that did not, which it retries),
// and a new client is greeted as soon as the loops are over.
func TestConcurrentLoops(t *testing.T) {
	needsCommand(t)
	const loops = 3
	toA := newCountingProxy(t)
	addr, _, _ := gateway(t, "-next", toA.addr, "-max-hops", "5", "-max-connections", "8")
	toA.to(addr)
	answers := make(chan error, loops)
	for range loops {
		go func() {
			c, err := smtp.Dial(addr)
			if err != nil {
				answers <- err
				return
			}
			defer c.Close()
			answers <- c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
		}()
	}
	for range loops {
		select {
		case err := <-answers:
			se, ok := errors.AsType[*smtp.SMTPError](err)
			require.True(t, ok, "%v", err)
			assert.True(t, se.Code == 554 || se.Temporary(), "%v", se)
		case <-time.After(20 * time.Second):
			t.Fatal("a looping message got no answer: the loops wait on each other")
		}
	}
	c, err := smtp.Dial(addr)
	require.NoError(t, err, "a client after the loops")
	c.Close()
}

// countingProxy forwards each connection it accepts on 127.0.0.1 to the
// address given to its to, and counts them.
type countingProxy struct {
	addr  string
	conns atomic.Int64
	to    func(addr string)
}

func newCountingProxy(t *testing.T) *countingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	p := &countingProxy{addr: l.Addr().String()}
	var target string
	set := make(chan struct{})
	p.to = func(addr string) { target = addr; close(set) }
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			p.conns.Add(1)
			go func() {
				defer c.Close()
				<-set
				next, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer next.Close()
				done := make(chan struct{}, 2)
				go func() { io.Copy(next, c); done <- struct{}{} }()
				go func() { io.Copy(c, next); done <- struct{}{} }()
				<-done
			}()
		}
	}()
	return p
}

// TestRoutingLoop: gateways whose next hops lead back to them (two
// pointed at each other, or one at itself) no longer pass a message round
// without end: each hop adds a Received field, the one that receives the
// message with -max-hops of them (100 by default) refuses it with 554
// 5.4.6, and that permanent reply goes back hop by hop to the sender,
// which does not send it again. The loop takes one connection a hop.
func TestRoutingLoop(t *testing.T) {
	needsCommand(t)
	for _, tt := range []struct {
		name string
		args []string
		max  int
	}{
		{"two gateways pointed at each other", nil, relay.DefaultMaxHops},
		{"two gateways pointed at each other, -max-hops 5", []string{"-max-hops", "5"}, 5},
		{"a gateway pointed at itself", nil, relay.DefaultMaxHops},
	} {
		t.Run(tt.name, func(t *testing.T) {
			toA := newCountingProxy(t)
			proxies := []*countingProxy{toA}
			var addrA string
			if strings.HasPrefix(tt.name, "two") {
				toB := newCountingProxy(t)
				proxies = append(proxies, toB)
				addrA, _, _ = gateway(t, append([]string{"-next", toB.addr}, tt.args...)...)
				addrB, _, _ := gateway(t, append([]string{"-next", toA.addr}, tt.args...)...)
				toB.to(addrB)
			} else {
				addrA, _, _ = gateway(t, append([]string{"-next", toA.addr}, tt.args...)...)
			}
			toA.to(addrA)
			connections := func() int {
				n := 0
				for _, p := range proxies {
					n += int(p.conns.Load())
				}
				return n
			}

			c, err := smtp.Dial(addrA)
			require.NoError(t, err)
			defer c.Close()
			sent := make(chan error, 1)
			go func() { sent <- c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(msg)) }()
			select {
			case err = <-sent:
			case <-time.After(30 * time.Second):
				t.Fatalf("still looping after 30 s, %d connections", connections())
			}
			se, ok := errors.AsType[*smtp.SMTPError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, 554, se.Code)
			assert.Equal(t, smtp.EnhancedCode{5, 4, 6}, se.EnhancedCode)
			assert.False(t, se.Temporary(), "the sender would try again")
			// The message went round with 1, 2, ... Received fields, and
			// was refused with max.
			assert.Equal(t, tt.max, connections(), "connections between the gateways")
			time.Sleep(200 * time.Millisecond)
			assert.Equal(t, tt.max, connections(), "still connecting after the sender's failure")
		})
	}
}
