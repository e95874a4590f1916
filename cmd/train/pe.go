package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/schemes"
	"github.com/posformer/posformer/position"
	"go.yaml.in/yaml/v3"
	"gorgonia.org/tensor"
)

// runPE prints a scheme's raw table as CSV: one row per position, one column per dimension
// (sinusoidal, learned: the values) or per rotated pair (rope: the angles p·θᵢ); for the
// relative schemes one row per distance p (alibi: each head's bias −m_h·p; t5: the bucket of the
// key p tokens back, and after with -bidirectional, and each head's initial bias), in full
// float64 precision. Each scheme option (position.Options) is a flag named after its key
// (max_positions: -max-positions); a flag given is a value written, 0 included, never replaced
// by the default, and an option the chosen scheme does not have is refused.
func runPE(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("scheme", "sinusoidal", "position scheme: "+strings.Join(position.Kinds(), ", "))
	n := fs.Int("positions", 64, "number of positions (rows)")
	dim := fs.Int("dim", 16, "model dimension (rope: the head dimension, with -heads 1)")
	heads := fs.Int("heads", 1, "attention heads (rope rotates each head's d_model/heads values)")
	seed := fs.Uint64("seed", 1, "initialisation seed of trainable tables")
	bidir := fs.Bool("bidirectional", false, "the bidirectional variant (model.bidirectional)")
	trainLen := fs.Int("train-len", 0, "rope with -rope-scaling: the longest training sequence in tokens; the table is then the rotation of a sequence of -positions tokens, scaled as rope_scaling scales it past training (yarn also multiplies cos and sin by 0.1·ln s + 1, s = positions/train-len, which the angles do not show)")
	opts := map[string]*string{} // flag name → value as given
	keyOf := map[string]string{} // flag name → option key
	tabled := tabledKinds()
	for _, key := range schemes.AllKeys() {
		if !schemes.IsOption(key) || peUnshown[key] {
			continue
		}
		name := strings.ReplaceAll(key, "_", "-")
		var help []string
		for _, k := range tabled { // only the options a table can show (U4)
			for _, o := range position.Options(k) {
				if o.Key == key {
					help = append(help, fmt.Sprintf("%s: %s%s", k, o.Doc, defaultNote(o)))
				}
			}
		}
		if len(help) > 0 {
			opts[name], keyOf[name] = fs.String(name, "", strings.Join(help, "; ")), key
		}
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("pe: unexpected argument %q: %w (see train pe -h)", fs.Arg(0), errUsage)
	}
	if *n < 1 || *n > 1<<20 {
		return fmt.Errorf("pe: -positions must be between 1 and %d, got %d", 1<<20, *n)
	}
	if *dim < 1 || *dim > 1<<14 {
		return fmt.Errorf("pe: -dim must be between 1 and %d, got %d", 1<<14, *dim)
	}
	if float64(*n)*float64(*dim) > 1<<26 {
		return fmt.Errorf("pe: -positions %d × -dim %d is more than %d values; print fewer positions", *n, *dim, 1<<26)
	}
	if !slices.Contains(position.Kinds(), *kind) {
		return fmt.Errorf("pe: -scheme: unknown scheme %q (known: %s)", *kind, strings.Join(position.Kinds(), ", "))
	}
	if *heads < 1 || *dim%*heads != 0 {
		return fmt.Errorf("pe: -heads must be positive and divide -dim %d, got %d", *dim, *heads)
	}
	sec := config.Position{Spec: position.Spec{Kind: *kind}} // the options as the flags wrote them, decoded below
	flagOf := map[string]string{}
	var ferr error
	fs.Visit(func(f *flag.Flag) {
		key, ok := keyOf[f.Name]
		if !ok || ferr != nil {
			return
		}
		var doc yaml.Node
		node := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
		if err := yaml.Unmarshal([]byte(*opts[f.Name]), &doc); err == nil && len(doc.Content) > 0 {
			node = doc.Content[0]
		}
		if err := sec.DecodeOption(key, node); err != nil {
			ferr = fmt.Errorf("pe: -%s: %w", f.Name, err)
		}
		flagOf[key] = f.Name
	})
	if ferr != nil {
		return ferr
	}
	dims := position.Dims{DModel: *dim, Heads: *heads, Dtype: tensor.Float64, Seed: *seed, Bidirectional: *bidir, Digit0: peDigit0}
	named := func(err error) error { // the flag that set the key the error names, if any
		if key, ok := strings.CutPrefix(fielderr.PathOf(err), "position."); ok && flagOf[key] != "" {
			return fmt.Errorf("pe: -%s: %w", flagOf[key], err)
		}
		return fmt.Errorf("pe: %w", err)
	}
	sec = sec.WithDefaults()
	if err := sec.Validate(); err != nil {
		return named(err)
	}
	spec := sec.Spec
	p := position.ParamCount(spec, dims)
	if p > 1<<26 {
		var set []string // the flags that size it: the scheme's options written, -dim, -heads
		for _, f := range slices.Sorted(maps.Values(flagOf)) {
			set = append(set, "-"+f)
		}
		for _, f := range []string{"dim", "heads"} {
			if flagSet(fs, f) {
				set = append(set, "-"+f)
			}
		}
		lower := "its options"
		if len(set) > 0 {
			lower = strings.Join(set, " or ")
		}
		return fmt.Errorf("pe: the %s options give a table of %d values, more than %d; lower %s", *kind, p, 1<<26, lower)
	}
	if !slices.Contains(tabled, *kind) {
		return fmt.Errorf("pe: scheme %q has no table (it adds no position values); try %s", *kind, strings.Join(tabled, ", "))
	}
	budget := newPEBudget()
	if err := budget.fits(fmt.Sprintf("the %s scheme's %d parameters", *kind, p), paramBytes(p), "lower -dim or the scheme's options"); err != nil {
		return err
	}
	s, err := position.New(spec, dims)
	if err != nil {
		return named(err)
	}
	budget.collect()
	tb := s.(position.Tabler) // tabled
	cols, err := columns(tb)
	if err != nil {
		return fmt.Errorf("pe: %w", err)
	}
	budget.collect()
	what := fmt.Sprintf("the %s table of %d rows (-positions) × %d columns", *kind, *n, cols)
	if err := budget.fits(what, paramBytes(p)+tableBytes(*n, cols), "print fewer -positions (or give fewer -heads or a smaller -dim)"); err != nil {
		return err
	}
	r, isRoPE := s.(*position.RoPE)
	scaled := isRoPE && r.Scaling != "" && r.Scaling != "none"
	switch {
	case flagSet(fs, "train-len") && !scaled:
		return fmt.Errorf("pe: -train-len: only rope with -rope-scaling (other than none) uses the training length; remove -train-len or give -rope-scaling")
	case scaled && *trainLen < 1:
		return fmt.Errorf("pe: -rope-scaling %s acts only past the training length: give -train-len N (the longest training sequence in tokens, N ≥ 1), e.g. -train-len %d", r.Scaling, max(*n/2, 1))
	}
	t, err := tb.Table(*n)
	if err != nil {
		return fmt.Errorf("pe: %w", err)
	}
	if scaled {
		t = scaledAngles(r, *n, *trainLen)
	}
	w := csv.NewWriter(stdout)
	w.Write(append([]string{"position"}, t.Columns...))
	row := make([]string, len(t.Columns)+1)
	for p, vals := range t.Rows {
		row[0] = strconv.Itoa(p)
		for j, v := range vals {
			if v == 0 {
				v = 0 // a bias −m·0 is −0, which would print as -0
			}
			row[j+1] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		w.Write(row)
	}
	w.Flush()
	return w.Error()
}

// scaledAngles is rope's table for a sequence of n tokens when training had trainLen: the angle
// p·scale·θᵢ of each position p and pair i, with the base, position scale and per-pair
// frequencies of rope_scaling (RoPE.Rotation; the plain angles when n ≤ trainLen).
func scaledAngles(r *position.RoPE, n, trainLen int) position.Table {
	c := r.Rotation(n, trainLen)
	freqs := c.Freqs
	if freqs == nil {
		freqs = ops.Theta(c.Base, c.Rot)
	}
	t := position.Table{Columns: make([]string, len(freqs))}
	for i := range freqs {
		t.Columns[i] = fmt.Sprintf("pair%d", i)
	}
	for p := 0; p < n; p++ {
		row := make([]float64, len(freqs))
		for i, w := range freqs {
			row[i] = float64(p) * c.Scale * w
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
