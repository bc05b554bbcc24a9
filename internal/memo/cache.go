package memo

import (
	"container/list"
	"sync"
)

// DefaultTenantShare is the default share of a Cache's bytes one tenant
// may hold.
const DefaultTenantShare = 0.125

// Cache is a concurrent LRU cache of values that belong to tenants,
// bounded in bytes (as the caller sizes each entry): it holds at most Max
// bytes, and no tenant holds more than TenantShare of them, so one tenant
// reading a large conversation at many budgets pushes out its own entries,
// not everyone's. The zero Cache is not usable: make one with NewCache.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	max     int64
	share   float64
	bytes   int64
	tenants map[string]int64 // bytes held by tenant
	lru     *list.List       // of *cacheEntry, most recent first
	items   map[K]*list.Element
}

type cacheEntry[K comparable, V any] struct {
	key    K
	tenant string
	v      V
	size   int64
}

// NewCache returns an empty Cache of max bytes in which one tenant holds
// at most share of them (DefaultTenantShare when share is not in (0, 1]).
func NewCache[K comparable, V any](max int64, share float64) *Cache[K, V] {
	if share <= 0 || share > 1 {
		share = DefaultTenantShare
	}
	return &Cache[K, V]{max: max, share: share, tenants: map[string]int64{}, lru: list.New(), items: map[K]*list.Element{}}
}

// TenantMax returns the bytes one tenant may hold.
func (c *Cache[K, V]) TenantMax() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tenantMax()
}

func (c *Cache[K, V]) tenantMax() int64 { return int64(float64(c.max) * c.share) }

// Get returns the value stored under k, and marks it recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry[K, V]).v, true
}

// Touch marks the entry under k recently used and calls f with its value,
// which f may update in place (its size stays as Put was told). It
// reports whether k is held and f kept the entry: when f reports false,
// nothing is marked and the caller Puts the value again.
func (c *Cache[K, V]) Touch(k K, f func(v *V) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok || !f(&el.Value.(*cacheEntry[K, V]).v) {
		return false
	}
	c.lru.MoveToFront(el)
	return true
}

// Put stores v under k for tenant, size bytes, replacing what k held. It
// forgets the tenant's least recently used entries while the tenant holds
// more than its share, then anyone's while the cache holds more than its
// bytes. A value larger than a tenant's share is not stored; Put reports
// whether v was.
func (c *Cache[K, V]) Put(tenant string, k K, v V, size int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.remove(el)
	}
	if size > c.tenantMax() {
		return false
	}
	e := &cacheEntry[K, V]{key: k, tenant: tenant, v: v, size: size}
	c.items[k] = c.lru.PushFront(e)
	c.bytes += size
	c.tenants[tenant] += size
	for el := c.lru.Back(); el != nil && c.tenants[tenant] > c.tenantMax(); {
		prev := el.Prev()
		if el.Value.(*cacheEntry[K, V]).tenant == tenant {
			c.remove(el)
		}
		el = prev
	}
	for c.bytes > c.max {
		c.remove(c.lru.Back())
	}
	return true
}

// DeleteFunc forgets every entry that drop reports true for, given its
// key and value.
func (c *Cache[K, V]) DeleteFunc(drop func(K, V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.items {
		if drop(k, el.Value.(*cacheEntry[K, V]).v) {
			c.remove(el)
		}
	}
}

// SetMax sets the cache's bytes, forgetting the least recently used
// entries (and each tenant's, for its share) beyond them.
func (c *Cache[K, V]) SetMax(max int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = max
	for el := c.lru.Back(); el != nil; {
		prev := el.Prev()
		if e := el.Value.(*cacheEntry[K, V]); c.bytes > c.max || c.tenants[e.tenant] > c.tenantMax() {
			c.remove(el)
		}
		el = prev
	}
}

// Stats returns the entries held, their bytes, and the bytes of the
// tenant holding the most.
func (c *Cache[K, V]) Stats() (entries int, bytes, largestTenant int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.tenants {
		largestTenant = max(largestTenant, n)
	}
	return len(c.items), c.bytes, largestTenant
}

// remove forgets el; c.mu is held.
func (c *Cache[K, V]) remove(el *list.Element) {
	e := el.Value.(*cacheEntry[K, V])
	c.lru.Remove(el)
	delete(c.items, e.key)
	c.bytes -= e.size
	if c.tenants[e.tenant] -= e.size; c.tenants[e.tenant] <= 0 {
		delete(c.tenants, e.tenant)
	}
}
