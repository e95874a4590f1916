package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/posformer/posformer/train"
)

// TestExitStatus: an interruption exits 130 with a note on resuming wherever the signal landed
// (in training, which says where it saved, or in the evaluation or a report, which only see a
// cancelled context); every other error exits 1; the message is always one line.
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name        string
		err         error
		interrupted bool
		code        int
		want        string
	}{
		{"in training", fmt.Errorf("run g: %w at step 7 of 10: checkpoint saved in d; run the same command with -resume to continue", train.ErrInterrupted), true,
			130, "train: run g: interrupted at step 7 of 10: checkpoint saved in d; run the same command with -resume to continue"},
		{"in evaluation", context.Canceled, true, 130, "train: interrupted: context canceled; the last checkpoint is kept: run the same command with -resume to continue"},
		{"a cancelled context without a signal", context.Canceled, false, 1, "train: context canceled"},
		{"a bad config", errors.New("cfg.yaml:3: model.heads: want a whole number, got \"x\""), false, 1, "train: cfg.yaml:3: model.heads: want a whole number, got \"x\""},
		{"several lines", errors.New("first\nsecond"), false, 1, "train: first second"},
	} {
		code, msg := exitStatus(tc.err, tc.interrupted)
		if code != tc.code || msg != tc.want || strings.Contains(msg, "\n") {
			t.Errorf("%s: got %d %q, want %d %q", tc.name, code, msg, tc.code, tc.want)
		}
	}
}
