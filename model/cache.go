package model

import "github.com/posformer/posformer/position"

// Cache keeps the compiled graphs of one model for reuse, within a memory budget: the graphs it
// holds add up to at most Budget bytes as GraphBytes predicts them, or to the one graph last
// asked for when that alone is larger. When a new graph would not fit, the least recently used
// ones are closed first (before the new one is built, so the two never coexist). Rebuilding a
// graph gives the same results bit for bit, so the budget changes speed only.
type Cache struct {
	m      *Model
	opt    BuildOptions
	budget int64
	lru    []*Graph // least recently used first
	total  int64
}

// NewCache makes a cache of graphs built with opt, holding at most budget bytes of them.
func NewCache(m *Model, opt BuildOptions, budget int64) *Cache {
	return &Cache{m: m, opt: opt, budget: budget}
}

// Get returns the graph for batches of `batch` sequences of `length` tokens, building it (and
// closing the least recently used graphs it has no room for) if needed.
func (c *Cache) Get(batch, length int) (*Graph, error) {
	for i, g := range c.lru {
		if g.Batch == batch && g.Len == length {
			copy(c.lru[i:], c.lru[i+1:])
			c.lru[len(c.lru)-1] = g
			return g, nil
		}
	}
	need := GraphBytes(c.m.Cfg, Shape{Batch: batch, Len: length, Grad: c.opt.Grad, Hooks: position.HooksOf(c.m.Scheme), MaxPos: max(c.opt.MaxPos, length)})
	for len(c.lru) > 0 && c.total+need > c.budget {
		g := c.lru[0]
		c.lru = c.lru[1:]
		c.total -= g.Bytes()
		g.Close()
	}
	g, err := c.m.Build(batch, length, c.opt)
	if err != nil {
		return nil, err
	}
	c.lru = append(c.lru, g)
	c.total += g.Bytes()
	return g, nil
}

// Len is the number of graphs held.
func (c *Cache) Len() int { return len(c.lru) }

// Close closes every graph held.
func (c *Cache) Close() {
	for _, g := range c.lru {
		c.total -= g.Bytes()
		g.Close()
	}
	c.lru = nil
}
