package config

// What config allows in files an earlier posformer wrote, and only there (ReadWritten reads
// them; a person's file is read strictly). They stay readable in place rather than through a
// migration: finished grids are read-only records (their grid.yaml is compared with what each run
// trained), and the report and the claims engine read them as they are.

import (
	"bytes"
	"reflect"

	"github.com/posformer/posformer/internal/schemes"
	"go.yaml.in/yaml/v3"
)

// How parse reads a file.
const (
	byPerson   = iota // strictly: every key checked, every written value kept
	written           // a run's config.yaml: options of other schemes dropped (othersDropped)
	legacyGrid        // an older grid.yaml: zeros are unset fields (legacyUnset, legacyEmptyList)
)

// modeOf is how ReadWritten reads a file posformer wrote: a grid.yaml without gridHeader that
// sweeps is an older grid.yaml; anything else is read as written.
func modeOf(src []byte) int {
	if !bytes.HasPrefix(src, []byte(gridHeader)) && bytes.Contains(src, []byte("\nsweep:")) {
		return legacyGrid
	}
	return written
}

// othersDropped is a run's position: section without the options of other schemes: an
// earlier posformer's config.yaml held every scheme's options (base, max_positions, init_std,
// rotary_fraction whatever the kind).
func othersDropped(p Position) Position {
	d := p.WithDefaults()
	for _, key := range d.OptionKeys() {
		if !schemes.HasOption(d.Kind, key) {
			p = p.Without(key)
		}
	}
	return p
}

// legacyUnset: in an older grid.yaml, which held a grid's unset fields as zeros, a zero value
// is not written (it takes the default).
func legacyUnset(v reflect.Value) bool { return v.IsZero() }

// legacyEmptyList: an older grid.yaml held an unset list as an empty string (lengths: "").
func legacyEmptyList(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Value == "" && (n.Tag == "!!str" || n.Tag == "!!null")
}
