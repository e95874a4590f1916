package train

import "github.com/posformer/posformer/config"

// observe applies the rule of e (config.EarlyStop) to the validation score at a step (counted
// from 1) and tells whether it improved on the best (the caller then saves the best checkpoint)
// and whether to stop.
func observe(e config.EarlyStop, st *trainState, step int, score float64) (improved, stop bool) {
	if st.BestStep == 0 || score > st.BestScore+e.MinDelta {
		st.BestScore, st.BestStep, st.Bad = score, step, 0
		improved = true
	} else {
		st.Bad++
	}
	stop = (e.Target > 0 && score >= e.Target) || (e.Patience > 0 && st.Bad >= e.Patience)
	return improved, stop
}
