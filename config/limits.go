package config

// What a run keeps and gathers besides its model, sized from the config alone: package setup's
// memory prediction charges them, package train holds to them.

// GraphCacheBytes bounds the training graphs a run keeps compiled (one per sequence length,
// as model.GraphBytes predicts them); beyond it the least recently used are closed and rebuilt
// when their length comes again (the same results, only slower). At least the graph of the
// current batch is always kept.
var GraphCacheBytes int64 = 1 << 30

// CaptureBytes bounds the attention weights an inspection graph keeps (train's diagnostics and
// inspect): a length where one example's weights pass it is not captured.
const CaptureBytes = 256 << 20

// CaptureBatch is how many examples of T tokens an inspection graph of a model with layers and
// heads of the dtype's bytes takes at once under a bound of the attention weights it keeps
// (CaptureBytes; their dtype copy and the float64 one): at most 16; 0 when one example's
// weights alone pass the bound.
func CaptureBatch(layers, heads, bytes, T, bound int) int {
	per := float64(layers*heads*(bytes+8)) * float64(T) * float64(T)
	return int(min(16, float64(bound)/per))
}

// What a run's evaluation gathers besides the scores (diagnostics.json), kept small: the
// attention of the first DiagnosticExamples test examples at every length (one extra forward pass
// of that many examples), and up to FailuresPerLength decoded failures at each of the first
// FailureLengths tested lengths past the training range.
const (
	DiagnosticExamples = 8
	FailureLengths     = 3
	FailuresPerLength  = 3
)

// MaxExamples bounds eval.examples and train.val_examples, the examples scored per length. At
// the bound a score's standard error is at most 0.0005 (√(0.25/n)), below the third decimal
// reports print, so more examples change no figure while the time grows in proportion (2^31
// examples evaluated for hours a length without a word).
const MaxExamples = 1_000_000

const maxExamplesWhy = "a score's standard error is then at most 0.0005, below the third decimal reports print, and more only cost time"
