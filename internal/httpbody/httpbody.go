// Package httpbody reads the bodies the proxy and the SDK middleware
// handle: a request body whose length is announced into one buffer of
// that length (io.ReadAll starts small and grows by copying, so at its
// last growth it holds a large body about twice, and these bodies are up
// to tens of megabytes), and an answer read on its way to the client
// (Tap).
package httpbody

import "io"

// ReadAll is io.ReadAll for a body announced as size bytes (a request's
// ContentLength; ≤ 0 when unknown). Its buffer grows four times at each
// step, and straight to size and one byte more (to see the end) once
// four times what it holds would be over half of that: a large body ends
// in a buffer of its own size, having held at most 1.5 times itself at
// the last copy (io.ReadAll copies at each growth, and a 16 MB body ends
// in a larger buffer). The room is taken as the bytes arrive: a client
// announcing 32 MB and sending one byte holds a buffer of firstRead, and
// none holds more than eight times what it sent. A body longer than
// announced is read whole all the same.
func ReadAll(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 || size >= 1<<31 {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, min(size+1, firstRead))
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) < cap(b) {
			continue
		}
		switch next := int64(4 * cap(b)); {
		case int64(cap(b)) >= size+1: // longer than announced: grow as io.ReadAll does
			b = append(b, 0)[:len(b)]
		case 2*next > size+1:
			b = append(make([]byte, 0, size+1), b...)
		default:
			b = append(make([]byte, 0, next), b...)
		}
	}
}

// firstRead is what ReadAll reads before it trusts the announced size.
const firstRead = 64 << 10

// Tap returns rc reading as it did, which at its end (io.EOF) hands what
// was read to keep, when that was at most max bytes (a longer body goes
// on unkept).
func Tap(rc io.ReadCloser, max int, keep func([]byte)) io.ReadCloser {
	return &tap{rc: rc, max: max, keep: keep}
}

type tap struct {
	rc   io.ReadCloser
	max  int
	buf  []byte
	over bool
	keep func([]byte)
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if !t.over {
		if len(t.buf)+n > t.max {
			t.over, t.buf = true, nil
		} else {
			t.buf = append(t.buf, p[:n]...)
		}
	}
	if err == io.EOF && !t.over && t.keep != nil {
		t.keep(t.buf)
		t.keep, t.buf = nil, nil
	}
	return n, err
}

func (t *tap) Close() error { return t.rc.Close() }
