// Package writedeadline gives each Write on a connection a deadline of its
// own, as nginx's send_timeout and RFC 5321's data block timeout
// (§4.5.3.2.5) have it: a peer that stops reading fails the write under
// way once the timeout has passed, instead of holding the writer for
// good, while a transfer of any length to a peer that keeps reading is
// never cut off.
package writedeadline

import (
	"errors"
	"net"
	"time"
)

// Conn sets a write deadline of Timeout from the start of each Write,
// replacing any other: a deadline its user sets (net/http without a
// WriteTimeout sets none; go-smtp's client sets and clears its own around
// each command) lasts until the next Write only.
type Conn struct {
	net.Conn
	Timeout time.Duration
}

func (c *Conn) Write(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.Timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// CloseWrite passes *net.TCPConn's through, as connlimit's conn does:
// net/http uses it to send its last answer before closing.
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
