package presence

import (
	"reflect"
	"testing"
)

func TestKeys(t *testing.T) {
	var k Keys
	if k.Has("a") || k.Len() != 0 || k.List() != nil {
		t.Fatalf("zero Keys not empty: %v", k.List())
	}
	k2 := k.With("train.lr").With("seed").With("train.lr")
	if k.Has("seed") {
		t.Fatal("With changed its receiver")
	}
	if !k2.Has("seed") || !k2.Has("train.lr") || k2.Has("train") || k2.Has("lr") || k2.Len() != 2 {
		t.Fatalf("keys %v", k2.List())
	}
	if !k2.HasUnder("train") || k2.HasUnder("tra") || !reflect.DeepEqual(k2.List(), []string{"seed", "train.lr"}) {
		t.Fatalf("keys %v", k2.List())
	}
	if w := k2.Without("train"); w.Has("train.lr") || !w.Has("seed") || k2 != Of("train.lr", "seed") {
		t.Fatalf("Without: %v", w.List())
	}
}

func TestFill(t *testing.T) {
	k := Of("written")
	a, b, c := 0.0, 0.0, 5.0
	Fill(k, "written", &a, 1.5)
	Fill(k, "unwritten", &b, 1.5)
	Fill(k, "unwritten", &c, 1.5)
	if a != 0 || b != 1.5 || c != 5 {
		t.Fatalf("written zero %g (want 0), unwritten zero %g (want 1.5), unwritten value %g (want 5)", a, b, c)
	}
}
