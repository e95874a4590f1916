package data

import (
	"fmt"
	"sync"
)

// kinds are the kinds the registered tasks declared (DeclareKind).
var kinds sync.Map

// DeclareKind declares the kind (KindSequence, KindText) of the task registered under name: a
// task of any kind but KindSequence calls it from the init that registers it. It panics on a
// kind with no traits.
func DeclareKind(name, kind string) {
	if _, ok := kindTraits[kind]; !ok {
		panic(fmt.Sprintf("data.DeclareKind: task %q: unknown kind %q", name, kind))
	}
	kinds.Store(name, kind)
}

// KindOf is the kind a registered task declared (DeclareKind); KindSequence when it declared
// none.
func KindOf(name string) string {
	if k, ok := kinds.Load(name); ok {
		return k.(string)
	}
	return KindSequence
}

// ReadsCorpus tells whether a registered task reads a corpus rather than generating examples
// (its kind's Traits.Corpus: lm): its examples are windows of text, every position scored, and
// it is evaluated by bits per byte rather than by exact match.
func ReadsCorpus(name string) bool { return TraitsOf(name).Corpus }
