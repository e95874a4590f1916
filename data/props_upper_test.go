package data

import "testing"

// TestDeclaredKind: a task's kind is what its init declared (DeclareKind), sequence when it
// declared none, whatever its name; a kind with no traits is refused.
func TestDeclaredKind(t *testing.T) {
	if KindOf(lmName) != KindText || !ReadsCorpus(lmName) || KindOf("copy") != KindSequence || ReadsCorpus("copy") {
		t.Fatalf("lm is %s, copy %s", KindOf(lmName), KindOf("copy"))
	}
	const name = "test_declared_text"
	if KindOf(name) != KindSequence {
		t.Fatalf("an undeclared task is %s", KindOf(name))
	}
	DeclareKind(name, KindText)
	defer kinds.Delete(name)
	if KindOf(name) != KindText || !TraitsOf(name).Windows || !InRange(name, 1, 5, 8) {
		t.Errorf("a task declared text is %s (traits %+v)", KindOf(name), TraitsOf(name))
	}
	defer func() {
		if recover() == nil {
			t.Error("DeclareKind accepted a kind with no traits")
		}
	}()
	DeclareKind(name, "image")
}
