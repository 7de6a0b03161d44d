//go:build unix

package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/examples/mailgateway/relay"
	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogReaderGone: with -dir or -next, a gateway whose log (standard
// error) nobody reads any more goes on delivering and answering. It used
// to end by SIGPIPE at the log line it writes between delivering a
// message and answering 250, so the sender, with no reply, sent the
// message again: delivered twice.
func TestLogReaderGone(t *testing.T) {
	needsCommand(t)
	var hopGot servertest.SyncBuffer
	for _, tt := range []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"-dir", func(t *testing.T) []string {
			return []string{"-dir", t.TempDir()}
		}},
		{"-next", func(t *testing.T) []string {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			s := smtp.NewServer(&relay.Backend{Options: mailhdr.Options{To: mailhdr.ToURI}, Deliver: relay.WriterDeliver(&hopGot)})
			s.Domain = "localhost"
			go s.Serve(l)
			t.Cleanup(func() { s.Close() })
			return []string{"-next", l.Addr().String()}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args(t)
			bin, err := built()
			require.NoError(t, err)
			cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
			r, w, err := os.Pipe()
			require.NoError(t, err)
			cmd.Stderr = w
			require.NoError(t, cmd.Start())
			w.Close()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			})
			require.NoError(t, r.SetReadDeadline(time.Now().Add(30*time.Second)))
			var addr string
			for sc := bufio.NewScanner(r); addr == "" && sc.Scan(); {
				if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
					addr = m[1]
				}
			}
			require.NotEmpty(t, addr, "the gateway did not say where it listens")
			require.NoError(t, r.Close()) // nobody reads its log any more

			for i := range 2 {
				require.NoError(t, send(t, addr), "message %d", i+1)
			}
			if tt.name == "-dir" {
				files, err := os.ReadDir(args[1])
				require.NoError(t, err)
				assert.Len(t, files, 2, "each message once")
			} else {
				assert.Equal(t, 2, strings.Count(hopGot.String(), "=== message from"), "each message once")
			}
		})
	}
}
