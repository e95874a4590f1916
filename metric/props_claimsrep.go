package metric

// Bounded tells whether the metric is a fraction in [0, 1] with a chance level (an accuracy).
// A metric that is not (bits per byte) is a number ≥ 0 with no upper bound and no chance level:
// a task it headlines is read as a curve against context length, not against chance, and a
// per-seed table holds its column only when a row has it.
func (m Metric) Bounded() bool { return m.Chance != nil }

// Unbounded lists the metrics that are not Bounded, in the order they were registered.
func Unbounded() []Metric { return Where(func(m Metric) bool { return !m.Bounded() }) }
