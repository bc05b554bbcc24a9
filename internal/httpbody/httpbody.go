// Package httpbody reads the bodies the proxy and the SDK middleware
// handle: a request body whose length is announced into one buffer of
// that length (io.ReadAll starts small and grows by copying, so at its
// last growth it holds a large body about twice, and these bodies are up
// to tens of megabytes), and an answer read on its way to the client
// (Tap).
package httpbody

import "io"

// ReadAll is io.ReadAll starting with room for size bytes and one more
// (to see the end), size being the announced length (a request's
// ContentLength): the body is read into one buffer when size is right,
// and read whole as io.ReadAll reads it when size is unknown (≤ 0), too
// small or too large.
func ReadAll(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 || size >= 1<<31 {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than announced: grow as io.ReadAll does
		}
	}
}

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
