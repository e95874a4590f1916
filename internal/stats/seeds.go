package stats

import (
	"math/rand/v2"
	"slices"
)

// seedsResamples is the number of bootstrap resamples of SeedsNeeded (odd, so that the median is one
// of them).
const seedsResamples = 201

// SeedsNeeded estimates how many values (seeds) the betting confidence sequence would need to reach a
// decision if further values looked like the ones observed. For each of 201 bootstrap resamples it
// draws values one at a time, with replacement, from xs (a fixed-seed generator: the same inputs give
// the same answer), runs BettingCS(·, lo, hi, alpha) on them, and notes the first t ≤ max at which
// decided(set after t values) holds, or max+1 if none does; the result is the median of those 201
// numbers, so max+1 means that most resamples never decide within max values. Empty xs or max < 1
// give max+1.
//
// What it is: a plug-in estimate at the observed mean and spread, to say beside an open claim roughly
// how far it is from a decision (a handful of seeds more, or out of reach).
// What it is not: a power calculation or a promise. It resamples only the values seen, so with two or
// three seeds it cannot know the modes not seen yet (a seed that extrapolates when none did so far),
// and it treats the observed difference as the true one, which over-states the effect of a claim that
// looks promising by chance. It counts values from the first, not the seeds still to add.
func SeedsNeeded(xs []float64, lo, hi, alpha float64, decided func(Bounds) bool, max int) int {
	if len(xs) == 0 || max < 1 {
		return max + 1
	}
	rng := rand.New(rand.NewPCG(0x5eed5, 46))
	firsts := make([]int, seedsResamples)
	for r := range firsts {
		cs := newBetting(lo, hi, alpha, bettingC, max)
		firsts[r] = max + 1
		for t := 1; t <= max; t++ {
			if decided(cs.add(xs[rng.IntN(len(xs))])) {
				firsts[r] = t
				// Draw the rest of this resample all the same, so that each resample uses the same
				// stream of draws whatever the data: SeedsNeeded then moves monotonically with a shift.
				for ; t < max; t++ {
					rng.IntN(len(xs))
				}
				break
			}
		}
	}
	slices.Sort(firsts)
	return firsts[seedsResamples/2]
}
