package http

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// The /ui session: after a login the cookie holds a session token, never
// the key. A token is the key's SHA-256 (the form keys are stored in) and
// an expiry, signed with HMAC-SHA-256 under the server's session secret:
// it cannot be extended or made for another key without the secret, and
// every request checks its key as a Bearer key is checked (a revoked key
// ends its sessions).

// DefaultSessionTTL is how long a /ui session lasts.
const DefaultSessionTTL = 12 * time.Hour

const sessionVersion = 1

// sessionSecret returns the HMAC key of sessions: SessionSecret, or one
// made at random for this server when it is empty.
func (s *Server) sessionSecret() []byte {
	s.sessionOnce.Do(func() {
		s.secret = s.SessionSecret
		if len(s.secret) == 0 {
			s.secret = make([]byte, 32)
			rand.Read(s.secret)
		}
	})
	return s.secret
}

func (s *Server) sessionTTL() time.Duration {
	if s.SessionTTL > 0 {
		return s.SessionTTL
	}
	return DefaultSessionTTL
}

// newSession returns a token for the key with hash keyHash (hex), expiring
// at expires.
func (s *Server) newSession(keyHash string, expires time.Time) string {
	raw, err := hex.DecodeString(keyHash)
	if err != nil || len(raw) != sha256.Size {
		return ""
	}
	p := make([]byte, 0, 1+8+sha256.Size)
	p = append(p, sessionVersion)
	p = binary.BigEndian.AppendUint64(p, uint64(expires.Unix()))
	p = append(p, raw...)
	m := hmac.New(sha256.New, s.sessionSecret())
	m.Write(p)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(p) + "." + enc.EncodeToString(m.Sum(nil))
}

// session returns the key hash (hex) a token was made for, or ok=false
// when it is malformed, not signed with this server's secret, or expired
// at now.
func (s *Server) session(token string, now time.Time) (keyHash string, ok bool) {
	a, b, found := strings.Cut(token, ".")
	if !found || len(token) > 200 {
		return "", false
	}
	enc := base64.RawURLEncoding
	p, err1 := enc.DecodeString(a)
	sig, err2 := enc.DecodeString(b)
	if err1 != nil || err2 != nil || len(p) != 1+8+sha256.Size || p[0] != sessionVersion {
		return "", false
	}
	m := hmac.New(sha256.New, s.sessionSecret())
	m.Write(p)
	if !hmac.Equal(sig, m.Sum(nil)) {
		return "", false
	}
	if exp := time.Unix(int64(binary.BigEndian.Uint64(p[1:9])), 0); !now.Before(exp) {
		return "", false
	}
	return hex.EncodeToString(p[9:]), true
}

// secureRequest reports whether r came over TLS: to this server, or to a
// proxy in TrustedProxies that says so (X-Forwarded-Proto: https). Secure
// forces it.
func (s *Server) secureRequest(r *http.Request) bool {
	if s.Secure || r.TLS != nil {
		return true
	}
	if len(s.TrustedProxies) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range s.TrustedProxies {
		if p.Contains(ip) {
			proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
			return strings.EqualFold(strings.TrimSpace(proto), "https")
		}
	}
	return false
}

// ParseTrustedProxies parses a comma-separated list of IP addresses and
// CIDR prefixes ("10.0.0.0/8,127.0.0.1"). It returns an error naming the
// first entry that is neither.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, &net.ParseError{Type: "IP address or CIDR prefix", Text: f}
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
