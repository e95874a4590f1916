// Package data generates the deterministic token streams that posformer
// trains and evaluates on.
//
// # Stream layout
//
// Every task (copy, reverse, sort, ...) produces an [Example] with an Input of
// L symbols and an Output whose length is given by [Task.OutputLen]. A
// decoder-only model reads the single token stream
//
//	input SEP output
//
// i.e. Input ++ [SEP] ++ Output (see [Example.Stream]). Token ids are laid out
// as PAD (0, reserved and never produced), SEP (1) and the task alphabet
// FirstSymbol .. FirstSymbol+Symbols-1, so a task's vocabulary size is
// FirstSymbol + Symbols (see [Task.Vocab]).
//
// # Next-token targets and the loss mask
//
// For a stream s of length L+1+OutputLen(L) the model input is s[:len(s)-1]
// and the target is s[1:], so the sequence length is [SeqLen] =
// L + OutputLen(L). The loss is taken on output tokens only (teacher forcing):
// [Batch.Weights] is 1 at positions t = L .. L+OutputLen(L)-1, where the
// target s[t+1] is an output token (position L is the SEP input whose target is
// the first output token), and 0 on the input part, where targets are random
// and unpredictable.
//
// # Bucketing by length
//
// All examples of a batch share one input length L, so batches are dense
// B×T arrays without padding. [Train] draws L uniformly from
// [MinLen, MaxLen] per batch, then BatchSize examples of that length.
// Extrapolation is measured with [TestSet] at lengths outside the training
// range.
//
// # Seeding
//
// Nothing depends on hidden global state. Batch i of the training stream is a
// pure function of (Seed, i): a splitmix64 mix of a training salt, the seed and
// i gives the two 64-bit words of a math/rand/v2 PCG generator, which first
// draws L and then the examples. Batches can therefore be produced in any
// order, and resuming training at step i yields exactly the data an
// uninterrupted run would have seen. [TestSet] derives its generator the same
// way from (seed, L) but with a different salt, so evaluation data comes from
// an RNG domain disjoint from the training stream's.
package data
