package data_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/posformer/posformer/data"
)

func ExampleExample_Stream() {
	// A copy example of length 4: input SEP output (SEP is token 1).
	e := data.Example{Input: []int{2, 5, 3, 4}, Output: []int{2, 5, 3, 4}}
	fmt.Println(e.Stream())
	// Output: [2 5 3 4 1 2 5 3 4]
}

func ExampleNames() {
	// The registered tasks, sorted (New's error lists them too).
	names := data.Names()
	fmt.Println(slices.IsSorted(names), slices.Contains(names, "copy"), slices.Contains(names, "mqar"))
	// Output: true true true
}

func ExampleNew() {
	_, err := data.New("foo", data.Options{})
	fmt.Println(strings.HasPrefix(err.Error(), `unknown task "foo" (known: addition, `))
	task, _ := data.New("reverse", data.Options{Symbols: 10})
	fmt.Println(task.Name(), task.Vocab(), data.SeqLen(task, 5))
	// Output:
	// true
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
	// An example of three tasks at input length L = 8, as the stream input SEP output (SEP is
	// token 1): copy answers after SEP; mqar (8 symbols: keys 3..5, values 6..9) is scored
	// inside its input, at its queries, and has no answer after SEP. docs/tasks.md shows every
	// task's at L = 4 (TestDocStreams checks them).
	for _, name := range []string{"copy", "parity", "mqar"} {
		task, _ := data.New(name, data.Options{})
		ex, _ := data.TestSet(task, 8, 1, 1)
		fmt.Printf("%s: vocab %d, OutputLen(8) = %d, stream %v\n", name, task.Vocab(), task.OutputLen(8), ex[0].Stream())
	}
	// Output:
	// copy: vocab 10, OutputLen(8) = 8, stream [2 6 5 7 8 4 3 7 1 2 6 5 7 8 4 3 7]
	// parity: vocab 4, OutputLen(8) = 1, stream [2 2 3 3 2 2 3 3 1 2]
	// mqar: vocab 10, OutputLen(8) = 0, stream [5 9 4 6 4 6 5 9 1]
}
