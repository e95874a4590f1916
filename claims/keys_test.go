package claims

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaimKeysOfKind: a kind's keys are its options' (its file's type), none of them every
// claim's; a claim writing a key its kind does not read (a value that would do nothing) is
// refused with one line naming claims[0].<key> and the kind; a key its kind reads is not refused
// for being there.
func TestClaimKeysOfKind(t *testing.T) {
	values := map[string]string{
		"a": "{task: copy, scheme: kerple}", "b": "{task: copy, scheme: alibi}", "cells": "[{task: copy, scheme: kerple}]",
		"where": "randomized=true", "drop": "[randomized]", "headline": "{text: h}",
	}
	var keys []string // every kind's keys, each once
	for _, d := range kinds {
		for _, k := range d.keys {
			if slices.Contains(commonKeys, k) {
				t.Errorf("kind %s's key %s is every claim's (Claim's) too", d.name, k)
			}
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	dir := t.TempDir()
	n := 0
	for _, k := range keys {
		v, ok := values[k]
		if !ok {
			v = "0.5"
		}
		for _, d := range kinds {
			kind := d.name
			src := "title: keys\ntables: [{name: t, csv: " + abs(t, "testdata/tiny.csv") + "}]\n" +
				"statistic: {metric: exact_match, past_training: 2, learned: 0.9}\n" +
				"claims:\n  - {id: x, kind: " + kind + ", " + k + ": " + v + "}\n"
			path := filepath.Join(dir, "keys.yaml")
			os.WriteFile(path, []byte(src), 0o644)
			_, err := Load(path)
			refused := err != nil && strings.Contains(err.Error(), "claims[0]."+k+": a "+kind+" claim does not read "+k+":")
			if reads := slices.Contains(d.keys, k); reads == refused {
				t.Errorf("%s claim with %s: (read: %v): got %v", kind, k, reads, err)
			}
			if refused && strings.Contains(err.Error(), "\n") {
				t.Errorf("%s claim with %s: not one line: %v", kind, k, err)
			}
			n++
		}
	}
	if n < 50 {
		t.Fatalf("checked %d kind × key pairs, want every kind against every kind-specific key (≥ 50)", n)
	}
}
