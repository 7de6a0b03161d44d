package mapping

import "net/netip"

// SPEC U7 checks a URI body against the BODY character set only. A
// hierarchical body ("//" authority path) must also have a well-formed
// authority (RFC 3986 §3.2), or net/url and most other URI parsers refuse
// the URI. This file fills that gap, in both directions, with KindInvalidURI:
//
//	authority = [ userinfo "@" ] host [ ":" port ]
//	userinfo  = *( unreserved / pct-encoded / sub-delims / ":" )
//	host      = "[" IPv6address [ "%25" 1*unreserved ] "]" / reg-name
//	reg-name  = *( unreserved / sub-delims / "%" HH )   ; HH >= 80 only
//	port      = *DIGIT
//
// Percent-encoding in a reg-name is limited to UTF-8 octets, as RFC 3986
// §3.2.2 requires of URI producers; IPvFuture literals are refused, as
// net/url refuses them.

var (
	tabUserinfo = setUnreserved.Union(setSubDelims).Union(NewByteSet(":%")).t
	tabRegName  = setUnreserved.Union(setSubDelims).t
	tabDigit    = setDigit.t
)

// badAuthority returns the offset in body of the octet that makes its
// authority malformed, and what was expected there; -1 when body has no
// authority or a valid one. body must already be valid in BODY (so every
// '%' starts a triplet).
func badAuthority[T bytesOrString](body T) (int, string) {
	if len(body) < 2 || body[0] != '/' || body[1] != '/' {
		return -1, ""
	}
	// Most authorities are a plain host name, or userinfo "@" host.
	hostEnd := func(i int) bool { return i == len(body) || body[i] == '/' || body[i] == '?' }
	end := span(body, 2, tabRegName)
	if hostEnd(end) {
		return -1, ""
	}
	if u := span(body, end, tabUserinfo); u < len(body) && body[u] == '@' && hostEnd(span(body, u+1, tabRegName)) {
		return -1, ""
	}
	end, at := 2, -1
	for ; end < len(body) && body[end] != '/' && body[end] != '?'; end++ {
		if body[end] == '@' && at < 0 {
			at = end
		}
	}
	i := 2
	if at >= 0 {
		for j := 2; j < at; j++ {
			if !tabUserinfo[body[j]] {
				return j, "userinfo"
			}
		}
		i = at + 1
	}
	if i < end && body[i] == '[' {
		closing := i + 1
		for closing < end && body[closing] != ']' {
			closing++
		}
		if closing == end || !validIPLiteral(body[i+1:closing]) {
			return i, "an IPv6 literal"
		}
		i = closing + 1
	} else {
		for ; i < end && body[i] != ':'; i++ {
			c := body[i]
			if c == '%' {
				if unhex(body[i+1]) < 8 {
					return i, "a host (percent-encoding only for UTF-8 octets)"
				}
				i += 2
			} else if !tabRegName[c] {
				return i, "a host"
			}
		}
	}
	if i < end && body[i] != ':' {
		return i, "':' and a port after the host"
	}
	for j := i + 1; j < end; j++ {
		if !tabDigit[body[j]] {
			return j, "a port of digits"
		}
	}
	return -1, ""
}

// validIPLiteral checks the inside of "[...]": an IPv6 address with an
// optional RFC 6874 zone ("%25" and unreserved characters).
func validIPLiteral[T bytesOrString](lit T) bool {
	addr := lit
	for i := 0; i+2 < len(lit); i++ {
		if lit[i] == '%' {
			if lit[i+1] != '2' || lit[i+2] != '5' || i+3 == len(lit) {
				return false
			}
			for j := i + 3; j < len(lit); j++ {
				if !setUnreserved.Contains(lit[j]) {
					return false
				}
			}
			addr = lit[:i]
			break
		}
	}
	a, err := netip.ParseAddr(string(addr))
	return err == nil && a.Is6() && a.Zone() == ""
}
