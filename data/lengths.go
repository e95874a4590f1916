package data

import "github.com/posformer/posformer/internal/fielderr"

// LengthChecked is the optional hook of a task that cannot build every input length (passkey:
// none shorter than its prompt without filler; flip_flop: odd ones): CheckLength says why L is
// not one, nil when it is.
type LengthChecked interface {
	CheckLength(L int) error
}

// CheckLength tells whether a task can build inputs of length L (always, for a task without
// the [LengthChecked] hook, when L >= 1).
func CheckLength(t Task, L int) error {
	if c, ok := unwrapFormat(t).(LengthChecked); ok {
		return c.CheckLength(L)
	}
	return nil
}

// readBy refuses the options only one task reads (task.depth, task.ignore_prob, task.queries) on
// another.
func (o Options) readBy(name string) error {
	switch {
	case o.Queries != nil && name != mqarName:
		return fielderr.New("task.queries", "only the mqar task has queries (the task is %s); remove it", name)
	case o.Depth != nil && name != passkeyName:
		return fielderr.New("task.depth", "only the passkey task places a needle (the task is %s); remove it", name)
	case o.IgnoreProb != nil && name != flipFlopName:
		return fielderr.New("task.ignore_prob", "only the flip_flop task has ignore instructions (the task is %s); remove it", name)
	}
	return nil
}
