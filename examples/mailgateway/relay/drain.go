package relay

import (
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// drainState is what Drain needs: the open sessions, and whether Drain
// has been called.
type drainState struct {
	mu       sync.Mutex
	sessions map[*session]struct{}
	draining bool
}

// QuitWindow is how long a session that has finished its message during
// Drain may take to send its next command, typically QUIT, before it is
// ended.
const QuitWindow = time.Second

// Drain ends the Backend's sessions, for a server that shuts down: at once
// each one that is between messages, and each one that begins later once
// its greeting has been answered; a session with a message under way
// (from an accepted MAIL on) when its message is done (the end of its
// DATA, or RSET), after QuitWindow for its QUIT. A MAIL after Drain is
// answered "421 4.3.2" (try again later). go-smtp's Server.Shutdown waits
// for every session to close, one that merely stays connected included:
// without Drain, a client that keeps its session open between messages
// holds the shutdown until its idle timeout or the grace period ends.
//
// A session ends when the read of its next command times out
// (net.Conn.SetReadDeadline): go-smtp then answers "421 4.4.2" and closes
// the connection, as RFC 5321 §3.8 asks of a server that shuts down, so
// that the client knows to try again later. A connection whose read
// deadline is set again before each read (go-smtp with a ReadTimeout does
// that) may read one more command first. Connections that have not
// greeted yet have no session: end them at the listener.
func (b *Backend) Drain() {
	b.drain.mu.Lock()
	defer b.drain.mu.Unlock()
	b.drain.draining = true
	for s := range b.drain.sessions {
		if !s.inMessage {
			s.end(time.Now())
		}
	}
}

// opened registers a new session, and ends it if Drain was called.
func (b *Backend) opened(s *session) {
	b.drain.mu.Lock()
	defer b.drain.mu.Unlock()
	if b.drain.sessions == nil {
		b.drain.sessions = make(map[*session]struct{})
	}
	b.drain.sessions[s] = struct{}{}
	if b.drain.draining {
		s.end(time.Now())
	}
}

// closed forgets a session that has ended.
func (b *Backend) closed(s *session) {
	b.drain.mu.Lock()
	defer b.drain.mu.Unlock()
	delete(b.drain.sessions, s)
}

// shuttingDown is the answer to a MAIL after Drain.
var shuttingDown = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Service shutting down, try again later"}

// messageBegins marks s as in the middle of a message, which Drain lets
// finish, or refuses the message after Drain, ending s at once.
func (s *session) messageBegins() error {
	s.b.drain.mu.Lock()
	defer s.b.drain.mu.Unlock()
	if s.b.drain.draining {
		s.end(time.Now())
		return shuttingDown
	}
	s.inMessage = true
	return nil
}

// messageEnds marks s as between messages, and ends it after QuitWindow
// if Drain was called while its message was under way.
func (s *session) messageEnds() {
	s.b.drain.mu.Lock()
	defer s.b.drain.mu.Unlock()
	if s.inMessage && s.b.drain.draining {
		s.end(time.Now().Add(QuitWindow))
	}
	s.inMessage = false
}

// end makes the read of s's next command time out at t. Called with
// s.b.drain.mu held.
func (s *session) end(t time.Time) {
	if s.conn != nil {
		_ = s.conn.Conn().SetReadDeadline(t)
	}
}
