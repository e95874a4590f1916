// Package data generates the deterministic token streams that posformer
// trains and evaluates on.
//
// # Stream layout
//
// Every task produces an [Example] with an Input of exactly L symbols and an
// Output whose length is given by [Task.OutputLen]. A decoder-only model reads
// the single token stream
//
//	input SEP output
//
// i.e. Input ++ [SEP] ++ Output (see [Example.Stream]). Token ids are laid out
// as PAD (0, reserved and never produced), SEP (1) and the task's symbols
// FirstSymbol .. Vocab-1 (see [Task.Vocab]). For the tasks with an alphabet
// size ([Options.Symbols]) these are the Symbols symbols of the alphabet, so
// the vocabulary size is FirstSymbol + Symbols; the tasks with a fixed alphabet
// list their tokens in their definitions.
//
// # Tasks
//
// L is always the number of input tokens, so all examples of a batch have
// inputs of the same length. The tasks follow Deletang et al. 2023, "Neural
// Networks and the Chomsky Hierarchy" (ICLR), where they define them; the
// class is the one the paper gives (R regular, DCF deterministic
// context-free, CS context-sensitive). docs/tasks.md has a table with an
// example of each.
//
//	name                input (L tokens)                  output                      OutputLen  class
//	copy                L symbols                         the input                   L          (not in the paper)
//	reverse             L symbols                         the input reversed          L          DCF
//	sort                L symbols                         the input sorted            L          CS (as bucket_sort)
//	bucket_sort         L symbols                         the input sorted            L          CS
//	duplicate           L symbols                         the input twice             2L         CS
//	parity              L bits                            number of 1s mod 2          1          R
//	even_pairs          L symbols a, b                    #ab + #ba even or odd       1          R
//	cycle_navigation    L actions -1, 0, +1               final state on a 5-cycle    1          R
//	modular_arithmetic  expression over 0..4 and + − ×    its value mod 5             1          R
//	binary_addition     a+b, little-endian bits           a+b in L+1 bits             L+1        CS
//	stack_manipulation  stack bits, then stack actions    final stack, END, 0s        L+1        DCF
//	modular_arithmetic_brackets  bracketed expression     its value mod 5             1          DCF
//	solve_equation      bracketed equation in x           x mod 5                     1          DCF
//	missing_duplicate   ss over bits, one bit blanked     the blanked bit             1          CS
//	odds_first          L symbols                         odd positions, then even    L          CS
//	binary_multiplication  a×b, little-endian bits        a·b in L bits               L          CS
//	compute_sqrt        L bits, big-endian                ⌊√x⌋ in ⌈L/2⌉ bits          ⌈L/2⌉      CS
//
// Beside them: lm (next-byte prediction on a corpus), passkey (a key hidden in L bytes of filler
// text, asked for at the end; L ≥ 239), flip_flop (L tokens of write/ignore/read instructions,
// scored at the reads, inside the input: no answer after SEP; L even) and mqar (⌊L/4⌋ key–value
// pairs, then every key queried with its value, scored at the queries inside the input; L ≥ 4).
// passkey, flip_flop and mqar refuse the lengths they cannot build through the [LengthChecked]
// hook.
//
// copy, reverse, sort, bucket_sort, duplicate and odds_first draw their symbols
// uniformly from an alphabet of [Options.Symbols] symbols (default [DefaultSymbols]).
// The others fix their alphabet: for them Options.Symbols must be left
// unset (0, or DefaultSymbols, which the training config fills in for an unset
// task.symbols), and any other value is an error naming task.symbols. Each
// task's doc comment (in the file named after it) gives its exact definition:
// the token ids, how inputs are drawn and, for modular_arithmetic (even L) and
// binary_addition (L < 3), how every L >= 1 is made a valid input.
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
