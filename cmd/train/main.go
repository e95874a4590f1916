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
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/posformer/posformer/train"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	interrupted := ctx.Err() != nil
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return // -h printed the usage, as asked
	}
	if err != nil {
		code, msg := exitStatus(err, interrupted)
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(code)
	}
}

// exitStatus is how the CLI ends on an error: 130 with a note on resuming when a signal
// (SIGINT, SIGTERM) stopped it, wherever it was (training saves a checkpoint and says so; the
// evaluation or a grid's report, stopped, are redone by -resume), 1 otherwise. The message is
// one line.
func exitStatus(err error, interrupted bool) (int, string) {
	msg := "train: " + strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
	if !errors.Is(err, train.ErrInterrupted) && !(interrupted && errors.Is(err, context.Canceled)) {
		return 1, msg
	}
	if !strings.Contains(msg, "-resume") {
		msg = "train: interrupted: " + strings.TrimPrefix(msg, "train: ") + "; the last checkpoint is kept: run the same command with -resume to continue"
	}
	return 130, msg
}
