// Package readsized reads a request body whose length is announced into
// one buffer of that length. io.ReadAll starts small and grows by copying,
// so at its last growth it holds a large body about twice; the proxy and
// the SDK middleware read bodies of up to tens of megabytes.
package readsized

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
