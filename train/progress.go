package train

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress reports long work on stderr: a progress bar on a terminal, plain periodic lines
// otherwise (CI logs, pipes), so a log file never fills with carriage returns.
type Progress struct {
	w        io.Writer
	bar      *progressbar.ProgressBar
	label    string
	total    int
	start    time.Time
	last     time.Time
	lastFrac float64
}

// NewProgress starts reporting `total` units of work. A nil writer reports nothing.
func NewProgress(w io.Writer, tty bool, total int, label string) *Progress {
	p := &Progress{w: w, label: label, total: total, start: time.Now()}
	p.last = p.start
	if w != nil && tty {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(24),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)
	}
	return p
}

// Update reports that `done` units are finished, with a short status (loss, tokens/s).
func (p *Progress) Update(done int, status string) {
	if p.w == nil {
		return
	}
	if p.bar != nil {
		p.bar.Describe(p.label + " " + status)
		_ = p.bar.Set(done)
		return
	}
	now := time.Now()
	frac := float64(done) / float64(max(p.total, 1))
	if done < p.total && now.Sub(p.last) < 15*time.Second && frac-p.lastFrac < 0.1 {
		return
	}
	p.last, p.lastFrac = now, frac
	el := now.Sub(p.start)
	eta := "?"
	if done > 0 {
		eta = (time.Duration(float64(el) / frac * (1 - frac))).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "%s %d/%d (%3.0f%%) %s elapsed %s eta %s\n", p.label, done, p.total, 100*frac, status, el.Round(time.Second), eta)
}

// Done finishes the bar.
func (p *Progress) Done() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
