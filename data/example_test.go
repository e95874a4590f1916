package data_test

import (
	"fmt"

	"github.com/posformer/posformer/data"
)

func ExampleExample_Stream() {
	// A copy example of length 4: input SEP output (SEP is token 1).
	e := data.Example{Input: []int{2, 5, 3, 4}, Output: []int{2, 5, 3, 4}}
	fmt.Println(e.Stream())
	// Output: [2 5 3 4 1 2 5 3 4]
}

func ExampleNames() {
	fmt.Println(data.Names())
	// Output: [addition binary_addition binary_multiplication bucket_sort compute_sqrt copy copy_repeat copy_repeat_2x copy_twice cycle_navigation duplicate even_pairs flip_flop lm missing_duplicate modular_arithmetic modular_arithmetic_brackets odds_first parity passkey reverse reverse_copy reverse_twice solve_equation sort stack_manipulation]
}

func ExampleNew() {
	_, err := data.New("foo", data.Options{})
	fmt.Println(err)
	task, _ := data.New("reverse", data.Options{Symbols: 10})
	fmt.Println(task.Name(), task.Vocab(), data.SeqLen(task, 5))
	// Output:
	// unknown task "foo" (known: addition, binary_addition, binary_multiplication, bucket_sort, compute_sqrt, copy, copy_repeat, copy_repeat_2x, copy_twice, cycle_navigation, duplicate, even_pairs, flip_flop, lm, missing_duplicate, modular_arithmetic, modular_arithmetic_brackets, odds_first, parity, passkey, reverse, reverse_copy, reverse_twice, solve_equation, sort, stack_manipulation)
	// reverse 12 10
}

func ExampleMakeBatch() {
	task, _ := data.New("reverse", data.Options{})
	b, _ := data.MakeBatch(task, []data.Example{
		{Input: []int{2, 3, 4}, Output: []int{4, 3, 2}},
	})
	fmt.Println("B, T, L:", b.B, b.T, b.L)
	fmt.Println("inputs: ", b.Inputs)
	fmt.Println("targets:", b.Targets)
	fmt.Println("weights:", b.Weights)
	// Output:
	// B, T, L: 1 6 3
	// inputs:  [2 3 4 1 4 3]
	// targets: [3 4 1 4 3 2]
	// weights: [0 0 0 1 1 1]
}

func ExampleTrain_Batch() {
	task, _ := data.New("sort", data.Options{})
	s := data.Train{Task: task, MinLen: 4, MaxLen: 8, BatchSize: 16, Seed: 1}
	b, _ := s.Batch(0)
	again, _ := s.Batch(0)
	fmt.Println(b.B, b.T == data.SeqLen(task, b.L), b.L >= 4 && b.L <= 8)
	fmt.Println(fmt.Sprint(b.Inputs) == fmt.Sprint(again.Inputs))
	// Output:
	// 16 true true
	// true
}

func ExampleTask() {
	// One example of every task at input length L = 4, as the stream
	// input SEP output (SEP is token 1); docs/tasks.md shows these.
	for _, name := range data.Names() {
		if data.ReadsCorpus(name) {
			continue // lm: windows of a corpus, not generated examples
		}
		task, _ := data.New(name, data.Options{})
		if data.CheckLength(task, 4) != nil {
			continue // passkey: no prompt is that short
		}
		ex, _ := data.TestSet(task, 4, 1, 1)
		fmt.Printf("%s: vocab %d, OutputLen(4) = %d, stream %v\n", name, task.Vocab(), task.OutputLen(4), ex[0].Stream())
	}
	// Output:
	// addition: vocab 13, OutputLen(4) = 3, stream [7 9 12 6 1 11 9 2]
	// binary_addition: vocab 5, OutputLen(4) = 5, stream [3 4 2 3 1 3 3 2 2 2]
	// binary_multiplication: vocab 5, OutputLen(4) = 4, stream [3 4 2 3 1 2 3 2 2]
	// bucket_sort: vocab 10, OutputLen(4) = 4, stream [6 2 5 6 1 2 5 6 6]
	// compute_sqrt: vocab 4, OutputLen(4) = 2, stream [2 2 3 2 1 2 3]
	// copy: vocab 10, OutputLen(4) = 4, stream [6 2 5 6 1 6 2 5 6]
	// copy_repeat: vocab 10, OutputLen(4) = 4, stream [6 6 6 6 1 6 6 6 6]
	// copy_repeat_2x: vocab 10, OutputLen(4) = 8, stream [6 6 6 6 1 6 6 6 6 6 6 6 6]
	// copy_twice: vocab 11, OutputLen(4) = 9, stream [6 2 5 6 1 6 2 5 6 10 6 2 5 6]
	// cycle_navigation: vocab 10, OutputLen(4) = 1, stream [3 4 2 3 1 5]
	// duplicate: vocab 10, OutputLen(4) = 8, stream [6 2 5 6 1 6 2 5 6 6 2 5 6]
	// even_pairs: vocab 6, OutputLen(4) = 1, stream [2 2 3 2 1 4]
	// flip_flop: vocab 7, OutputLen(4) = 0, stream [2 5 4 5 1]
	// missing_duplicate: vocab 6, OutputLen(4) = 1, stream [2 2 2 4 1 2]
	// modular_arithmetic: vocab 10, OutputLen(4) = 1, stream [7 5 7 4 1 2]
	// modular_arithmetic_brackets: vocab 12, OutputLen(4) = 1, stream [10 8 4 11 1 5]
	// odds_first: vocab 10, OutputLen(4) = 4, stream [6 2 5 6 1 2 6 6 5]
	// parity: vocab 4, OutputLen(4) = 1, stream [2 2 3 2 1 3]
	// reverse: vocab 10, OutputLen(4) = 4, stream [6 2 5 6 1 6 5 2 6]
	// reverse_copy: vocab 11, OutputLen(4) = 9, stream [6 2 5 6 1 6 5 2 6 10 6 2 5 6]
	// reverse_twice: vocab 11, OutputLen(4) = 9, stream [6 2 5 6 1 6 5 2 6 10 6 5 2 6]
	// solve_equation: vocab 13, OutputLen(4) = 1, stream [8 11 12 5 1 4]
	// sort: vocab 10, OutputLen(4) = 4, stream [6 2 5 6 1 2 5 6 6]
	// stack_manipulation: vocab 8, OutputLen(4) = 5, stream [2 3 5 4 1 3 2 7 2 2]
}
