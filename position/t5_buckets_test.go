package position

import "testing"

// TestT5BucketsUsed: counted against T5's bucket arithmetic worked by hand for 32 buckets and
// max_distance 128 (causal: 16 exact buckets for distances 0..15, then ⌊16 + ln(d/16)/ln(8)·16⌋).
func TestT5BucketsUsed(t *testing.T) {
	for _, c := range []struct {
		n, want int
		bidi    bool
	}{
		{1, 1, false},   // distance 0
		{16, 16, false}, // distances 0..15, one bucket each
		{17, 17, false}, // distance 16: bucket 16
		// distance 20: 16 + ⌊ln(1.25)/ln(8)·16⌋ = 16 + ⌊1.717⌋ = 17, so n = 21 reaches buckets 0..17
		{21, 18, false},
		// distance 41: 16 + ⌊ln(41/16)/ln(8)·16⌋ = 16 + ⌊7.24⌋ = 23: buckets 0..23
		{42, 24, false},
		{1000, 32, false}, // beyond max_distance every bucket is reached
		// bidirectional: 16 per direction, 8 exact; distance 0 is shared (bucket 0), a later key
		// at distance d in 1..7 is bucket 16 + d
		{8, 15, true},
	} {
		if got := T5BucketsUsed(c.n, c.bidi, 32, 128); got != c.want {
			t.Errorf("n %d bidirectional %v: %d buckets, want %d", c.n, c.bidi, got, c.want)
		}
	}
}
