package data

// How a task's symbols are written for a reader (train.FormatTokens: inspect, the report's
// decoded failures), declared by the tasks whose symbols stand for characters.

// Glyphed is the optional hook of a task whose symbols are characters: symbol s (token
// FirstSymbol + s) is written as the s-th character of Glyphs().
type Glyphed interface {
	Glyphs() string
}

// ByteTokens is the optional hook of a task whose symbols are bytes: token FirstSymbol + b is
// byte b (text: passkey's prompt, lm's corpus).
type ByteTokens interface {
	ByteTokens()
}

// Glyphs returns the characters of a task with the [Glyphed] hook (in either format, with or
// without task.end_token), and false for a task without it.
func Glyphs(t Task) (string, bool) {
	if g, ok := unwrapFormat(t).(Glyphed); ok {
		return g.Glyphs(), true
	}
	return "", false
}

// IsBytes tells whether a task's symbols are bytes (the [ByteTokens] hook), in either format.
func IsBytes(t Task) bool {
	_, ok := unwrapFormat(t).(ByteTokens)
	return ok
}
