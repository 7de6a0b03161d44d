// Package minrate bounds how long a peer may take to send one request (an
// SMTP command or message, an HTTP request body) as a whole, not only
// each read of it: past a first timeout of waiting, what the peer has
// sent must keep up a minimum rate, as Postfix's smtpd_min_data_rate and
// Apache's mod_reqtimeout MinRate have it. Without it, a peer that sends
// an octet just within each read's timeout holds its connection for as
// long as it likes.
package minrate

import (
	"math"
	"time"
)

// Wait returns how long the next read of a request may wait: timeout,
// but no longer than the request's whole budget leaves, which is timeout
// plus the time its got octets earn at rate octets a second, less the
// time its reads have waited so far. A rate of 0 or less is no minimum:
// each read may wait timeout. The result may be 0 or negative, a deadline
// already past.
func Wait(timeout, waited time.Duration, got, rate int64) time.Duration {
	if a := Allowance(got, rate); rate > 0 && a < math.MaxInt64-timeout {
		return min(timeout, timeout+a-waited)
	}
	return timeout
}

// Allowance is the time that n octets earn at rate octets a second (none
// for a rate of 0 or less), capped at a century.
func Allowance(n, rate int64) time.Duration {
	const most = 100 * 365 * 24 * time.Hour
	switch {
	case rate <= 0:
		return 0
	case n/rate >= int64(most/time.Second):
		return most
	}
	return time.Duration(n/rate)*time.Second + time.Duration(n%rate)*time.Second/time.Duration(rate)
}
