package data

import (
	"testing"
)

// wantCycle is the reference for cycle_navigation: walk the cycle of 5
// states from 0, one action at a time (tokens 2, 3, 4 = -1, 0, +1); the final
// state s is token 5+s.
func wantCycle(in []int) []int {
	step := map[int]int{2: -1, 3: 0, 4: +1}
	state := 0
	for _, tok := range in {
		state += step[tok]
		if state < 0 {
			state = 4
		}
		if state > 4 {
			state = 0
		}
	}
	return []int{5 + state}
}

func TestCycleNavigation(t *testing.T) {
	task := mustNew(t, "cycle_navigation", Options{})
	if task.Vocab() != 10 {
		t.Errorf("Vocab() = %d, want 10", task.Vocab())
	}
	// The paper's examples: 1 -1 0 -1 -1 ends at -2, state 3; 1 1 1 -1 at state 2.
	act := map[int]int{-1: 2, 0: 3, 1: 4}
	for _, tc := range []struct {
		actions []int
		state   int
	}{
		{[]int{1, -1, 0, -1, -1}, 3},
		{[]int{1, 1, 1, -1}, 2},
		{[]int{0}, 0},
		{[]int{-1}, 4},
		{[]int{1, 1, 1, 1, 1}, 0},
		{[]int{1, 1, 1, 1, 1, 1}, 1},
		{[]int{-1, -1, -1, -1, -1, -1, -1}, 3},
	} {
		in := make([]int, len(tc.actions))
		for i, a := range tc.actions {
			in[i] = act[a]
		}
		if got := wantCycle(in)[0]; got != 5+tc.state {
			t.Errorf("reference: %v ends at token %d, want %d", tc.actions, got, 5+tc.state)
		}
	}
	states := map[int]int{}
	actions := map[int]int{}
	for _, L := range []int{1, 2, 4, 7, 30} {
		if task.OutputLen(L) != 1 {
			t.Errorf("OutputLen(%d) = %d, want 1", L, task.OutputLen(L))
		}
		for _, e := range drawExamples(task, L, 400, 6) {
			for _, tok := range e.Input {
				actions[tok]++
			}
			states[e.Output[0]]++
		}
	}
	for tok := 2; tok <= 4; tok++ {
		if actions[tok] < 5000 {
			t.Errorf("action token %d drawn %d times, want about 5870: %v", tok, actions[tok], actions)
		}
	}
	if len(actions) != 3 || len(states) != 5 {
		t.Errorf("actions %v, final states %v: want the 3 actions (2..4) and all 5 states (5..9)", actions, states)
	}
}
