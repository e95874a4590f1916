package position

func init() {
	Register(Def[struct{}, None]{
		Kind: "none",
		Doc:  "NoPE: no position information (Kazemnejad et al. 2023)",
		New:  func(struct{}, Dims) (None, error) { return None{}, nil },
	})
}

// None claims no hook: it is a Scheme and nothing else.
var _ Scheme = None{}

// None is NoPE: no position information at all. With a causal mask a model can still infer
// positions (Kazemnejad et al. 2023); without one it is permutation-invariant.
type None struct{}

func (None) Name() string { return "none" }
