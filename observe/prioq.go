package observe

// prioq is a max-heap of lines by priority (ties: the earlier line).
type prioq []item

type item struct {
	p float64
	i int32
}

func (h prioq) less(a, b int) bool {
	if h[a].p != h[b].p {
		return h[a].p > h[b].p
	}
	return h[a].i < h[b].i
}

func (h *prioq) push(it item) {
	*h = append(*h, it)
	q := *h
	for c := len(q) - 1; c > 0; {
		p := (c - 1) / 2
		if !q.less(c, p) {
			break
		}
		q[c], q[p] = q[p], q[c]
		c = p
	}
}

func (h *prioq) pop() item {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for p := 0; ; {
		c := 2*p + 1
		if c >= n {
			break
		}
		if c+1 < n && q.less(c+1, c) {
			c++
		}
		if !q.less(c, p) {
			break
		}
		q[c], q[p] = q[p], q[c]
		p = c
	}
	*h = q
	return top
}
