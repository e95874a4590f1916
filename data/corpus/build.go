//go:build ignore

// build.go writes gostd.tar.gz, the lm task's built-in corpus, from a Go source tree:
//
//	go run data/corpus/build.go -goroot "$(go env GOROOT)" -out data/corpus/gostd.tar.gz
//
// It takes the non-test .go files of the packages listed below, in this order, each package's
// files sorted by name, into a tar archive with fixed metadata (mode 0644, mtime 0, no owner), so
// the archive's bytes depend only on the files' contents. The committed archive was made from Go
// 1.26.8's source (data/corpus/README.md); another Go version gives other contents, and so another
// hash, which the lm task then refuses unless task.corpus and task.corpus_sha256 name it.
package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

var packages = []string{
	"bufio", "bytes", "strings", "strconv", "sort", "unicode/utf8",
	"container/list", "container/heap", "container/ring",
	"encoding/json", "encoding/csv", "encoding/hex", "encoding/base64", "encoding/binary",
	"fmt", "errors", "path", "path/filepath", "io", "text/tabwriter", "text/template",
	"math", "math/big", "regexp", "regexp/syntax", "time", "flag", "html",
	"go/scanner", "go/token", "go/ast", "go/parser", "go/printer", "compress/flate",
}

func main() {
	goroot := flag.String("goroot", "", "the Go tree to read (go env GOROOT)")
	out := flag.String("out", "gostd.tar.gz", "the archive to write")
	flag.Parse()
	if err := build(*goroot, *out); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

func build(goroot, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	h := sha256.New()
	tw := tar.NewWriter(io.MultiWriter(zw, h))
	n := 0
	for _, p := range packages {
		names, err := filepath.Glob(filepath.Join(goroot, "src", p, "*.go"))
		if err != nil {
			return err
		}
		sort.Strings(names)
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				return err
			}
			hdr := &tar.Header{Name: "src/" + p + "/" + filepath.Base(name), Mode: 0o644, Size: int64(len(src)),
				ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			if _, err := tw.Write(src); err != nil {
				return err
			}
			n++
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	fmt.Printf("%s: %d files, sha256 of the tar %x\n", out, n, h.Sum(nil))
	return f.Close()
}
