package config

import "testing"

// TestKeyLine: keyLine follows mapping keys and list items ([i]) to the line that wrote a key; a
// key an item lacks is at the item's line, any other missing key or item at none (0).
func TestKeyLine(t *testing.T) {
	src := []byte(`model: {d_model: 16}
eval:
  lengths: [1, 2]
  variants:
    - {name: a, rope_scaling: ntk}
    - name: b
      rope_scaling: dynamic_ntk
`)
	for _, c := range []struct {
		keys []string
		want int
	}{
		{[]string{"model", "d_model"}, 1},
		{[]string{"model", "heads"}, 0},
		{[]string{"eval", "variants"}, 4},
		{[]string{"eval", "variants[0]"}, 5},
		{[]string{"eval", "variants[1]", "name"}, 6},
		{[]string{"eval", "variants[1]", "rope_scaling"}, 7},
		{[]string{"eval", "variants[1]", "rope_factor"}, 6}, // absent from the item: the item's line
		{[]string{"eval", "variants[2]", "rope_factor"}, 0}, // no such item
		{[]string{"eval", "variants[-1]"}, 0},
		{[]string{"eval", "lengths[1]"}, 3},
		{[]string{"eval", "lengths[0]", "x"}, 0}, // a scalar has no keys
		{[]string{"model[0]"}, 0},                // a mapping is no list
	} {
		if got := keyLine(src, c.keys...); got != c.want {
			t.Errorf("keyLine(%q) = %d, want %d", c.keys, got, c.want)
		}
	}
}
