package position

func init() {
	Register(Def[NoneOptions, *None]{
		Kind: "none",
		Doc:  "NoPE: no position information (Kazemnejad et al. 2023)",
		New: func(o NoneOptions, d Dims) (*None, error) {
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			return &None{LogScale: ls}, nil
		},
	})
}

// NoneOptions are none's options: only the scaling every scheme can take.
type NoneOptions struct {
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// None claims no position hook: it is a Scheme and nothing else (but the log-length scaling
// every scheme takes).
var _ Scheme = &None{}

// None is NoPE: no position information at all. With a causal mask a model can still infer
// positions (Kazemnejad et al. 2023); without one it is permutation-invariant.
type None struct{ LogScale }

func (*None) Name() string { return "none" }
