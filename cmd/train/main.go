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
	"sync"
	"syscall"
	"time"

	"github.com/posformer/posformer/internal/interrupt"
	"github.com/posformer/posformer/train"
)

func main() {
	ctx, tracker := interrupt.WithTracker(context.Background())
	ctx, cancel := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go endOnSignal(sigs, cancel, tracker)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	interrupted := ctx.Err() != nil
	exiting.Lock() // from here on main ends the process, not endOnSignal
	if errors.Is(err, flag.ErrHelp) {
		return // -h printed the usage, as asked
	}
	if err != nil {
		code, msg := exitStatus(err, interrupted)
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(code)
	}
}

// exiting is held by whichever of main and endOnSignal ends the process.
var exiting sync.Mutex

// endOnSignal ends the process on the first SIGINT or SIGTERM, at whatever stage it is: it
// cancels the context, lets a stage that saves its work on cancellation (training, see package
// interrupt) finish saving and return with its own message, and otherwise exits at once with
// status 130: a stage that does not watch the context (parsing, a long inspection) must not
// keep the process alive. A second signal exits without waiting.
func endOnSignal(sigs <-chan os.Signal, cancel func(), t *interrupt.Tracker) {
	sig := <-sigs
	cancel()
	second := make(chan struct{})
	go func() { <-sigs; close(second) }()
	t.Settled(500*time.Millisecond, second)
	exiting.Lock()
	name := map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]
	if stages := t.Stages(); stages != "" {
		name += " in " + stages
	}
	fmt.Fprintf(os.Stderr, "train: interrupted by %s; files are written whole or not at all, so nothing half-written is kept: run the same command again (with -resume for a run or grid already started)\n", name)
	os.Exit(130)
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
