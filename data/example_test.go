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
	// Output: [copy reverse sort]
}

func ExampleNew() {
	_, err := data.New("foo", data.Options{})
	fmt.Println(err)
	task, _ := data.New("reverse", data.Options{Symbols: 10})
	fmt.Println(task.Name(), task.Vocab(), data.SeqLen(task, 5))
	// Output:
	// unknown task "foo" (known: copy, reverse, sort)
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
