package http

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/swcmem/swc"
)

// KeyPrefix starts every key, so a leaked one is recognisable.
const KeyPrefix = "swc_"

// NewKey returns a new random key and its public id. Only HashKey(key)
// is stored.
func NewKey() (key, id string) {
	b := make([]byte, 32)
	rand.Read(b)
	key = KeyPrefix + base64.RawURLEncoding.EncodeToString(b)
	idb := make([]byte, 6)
	rand.Read(idb)
	return key, "k_" + hex.EncodeToString(idb)
}

// HashKey returns the hex SHA-256 of key, the form keys are stored in.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CreateKey makes a key for the tenant named name, creating the tenant
// when new. It returns the key (shown once) and its stored record.
func CreateKey(ctx context.Context, store swc.Store, name string) (string, swc.APIKey, error) {
	t, err := store.TenantByName(ctx, name)
	if swc.ErrorCode(err) == swc.ENOTFOUND {
		t, err = store.CreateTenant(ctx, name)
	}
	if err != nil {
		return "", swc.APIKey{}, err
	}
	key, id := NewKey()
	k, err := store.CreateKey(ctx, t.ID, id, HashKey(key))
	return key, k, err
}

type authKey struct{}

// authenticate returns the key a request carries (Bearer header, or the
// /ui session cookie when cookie is true), or ok=false.
func (s *Server) authenticate(r *http.Request, cookie bool) (swc.APIKey, bool) {
	k, err := s.lookupKey(r, cookie)
	return k, err == nil
}

// errNoKey is lookupKey's answer for a missing or invalid key.
var errNoKey = swc.Errorf(swc.ENOTFOUND, "no valid key")

// lookupKey returns the key a request carries, errNoKey when it carries
// none or an invalid one, or the store's error when the key could not be
// looked up (a database down is EUNAVAILABLE: 503, not 401).
func (s *Server) lookupKey(r *http.Request, cookie bool) (swc.APIKey, error) {
	var h string
	now := s.now()
	if auth := r.Header.Get("Authorization"); auth != "" || !cookie {
		scheme, tok, found := strings.Cut(auth, " ")
		if !found || !strings.EqualFold(scheme, "Bearer") {
			return swc.APIKey{}, errNoKey
		}
		key := strings.TrimSpace(tok)
		if !strings.HasPrefix(key, KeyPrefix) || len(key) > 100 {
			return swc.APIKey{}, errNoKey
		}
		h = HashKey(key)
	} else {
		c, err := r.Cookie(cookieName)
		if err != nil {
			return swc.APIKey{}, errNoKey
		}
		var ok bool
		if h, ok = s.session(c.Value, now); !ok {
			return swc.APIKey{}, errNoKey
		}
	}
	s.keysMu.Lock()
	e, hit := s.keys[h]
	s.keysMu.Unlock()
	k := e.key
	if !hit || now.After(e.expires) {
		var err error
		k, err = s.store.KeyByHash(r.Context(), h)
		if err != nil && swc.ErrorCode(err) != swc.ENOTFOUND {
			return swc.APIKey{}, err
		}
		if err != nil {
			return swc.APIKey{}, errNoKey
		}
		if s.KeyCacheTTL > 0 {
			s.keysMu.Lock()
			if s.keys == nil || len(s.keys) > 10000 {
				s.keys = map[string]cachedKey{}
			}
			s.keys[h] = cachedKey{key: k, expires: now.Add(s.KeyCacheTTL)}
			s.keysMu.Unlock()
		}
	}
	if subtle.ConstantTimeCompare([]byte(k.Hash), []byte(h)) != 1 || s.revokedHere(k.ID) {
		return swc.APIKey{}, errNoKey
	}
	return k, nil
}

// cachedKey is a valid key remembered for KeyCacheTTL.
type cachedKey struct {
	key     swc.APIKey
	expires time.Time
}

// authed wraps an API handler: 401 without a valid key, 429 over the
// key's rate; the handler gets the key's tenant id.
func (s *Server) authed(h func(w http.ResponseWriter, r *http.Request, tenant string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, err := s.lookupKey(r, false)
		if err != nil && err != errNoKey {
			s.writeErr(w, r, err)
			return
		}
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="swc"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "missing or invalid API key (Authorization: Bearer KEY)")
			return
		}
		if !s.allow(w, k.ID) {
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), authKey{}, k)), k.TenantID)
	})
}

// allow takes a token from the key's limiter, or writes 429 with
// Retry-After and returns false.
func (s *Server) allow(w http.ResponseWriter, keyID string) bool {
	return s.allowOr(w, keyID, func(status int, code, msg string) { writeError(w, status, code, msg) })
}

// allowOr is allow writing its 429 with fail.
func (s *Server) allowOr(w http.ResponseWriter, keyID string, fail func(status int, code, msg string)) bool {
	return s.takeOr(w, keyID, 1, fail)
}

// allowBody charges a request with a body of size bytes what its size
// costs beyond the one its authentication took (RateBytes), or writes
// 429 with fail and returns false.
func (s *Server) allowBody(w http.ResponseWriter, r *http.Request, size int, fail func(status int, code, msg string)) bool {
	k, ok := r.Context().Value(authKey{}).(swc.APIKey)
	if !ok || s.RateBytes <= 0 {
		return true
	}
	n := min(int((int64(size)+s.RateBytes-1)/s.RateBytes), max(s.Burst, 1))
	if n <= 1 {
		return true
	}
	return s.takeOr(w, k.ID, n-1, fail)
}

// takeOr takes n tokens from the key's limiter, or writes 429 with fail
// and returns false.
func (s *Server) takeOr(w http.ResponseWriter, keyID string, n int, fail func(status int, code, msg string)) bool {
	if s.Rate < 0 {
		return true
	}
	s.limitsMu.Lock()
	if s.limits == nil {
		s.limits = map[string]*rate.Limiter{}
	}
	l, ok := s.limits[keyID]
	if !ok {
		l = rate.NewLimiter(rate.Limit(s.Rate), max(s.Burst, 1))
		s.limits[keyID] = l
	}
	s.limitsMu.Unlock()
	now := s.now()
	res := l.ReserveN(now, n)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
		fail(http.StatusTooManyRequests, "rate_limited", "too many requests for this key; retry after "+w.Header().Get("Retry-After")+"s")
		return false
	}
	return true
}
