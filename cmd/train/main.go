// Command train is posformer's CLI: it trains and evaluates a transformer from a YAML config,
// prints a scheme's position table, and more (see `train -h`).
//
//	go run ./cmd/train                                  # the embedded default experiment
//	go run ./cmd/train -config configs/copy_rope.yaml -out runs/
//	go run ./cmd/train -config configs/copy_rope.yaml -set model.d_model=128 -set seed=2
//	go run ./cmd/train pe -scheme sinusoidal -positions 64 -dim 16
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/posformer/posformer/train"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		if errors.Is(err, train.ErrInterrupted) {
			os.Exit(130)
		}
		os.Exit(1)
	}
}
