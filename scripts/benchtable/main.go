// Command benchtable prints the README's benchmark tables, as Markdown,
// from the raw output scripts/bench.sh collects: the median of each
// benchmark over the rounds, and each ratio to the baseline measured in
// the same rounds.
//
//	go run ./scripts/benchtable DIR
//
// DIR holds mapping.txt, mapping-urlencoded.txt, middleware.txt and
// mailhdr.txt (go test's benchmark format); a missing file's table is left
// out.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtable DIR")
		os.Exit(2)
	}
	if err := run(os.Stdout, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// tables maps each raw file to the function that prints its table.
var tables = []struct {
	file  string
	print func(io.Writer, results) error
}{
	{"mapping.txt", mappingTable},
	{"mapping-urlencoded.txt", urlencodedTable},
	{"middleware.txt", middlewareTable},
	{"mailhdr.txt", mailhdrTable},
}

// run prints the table of each raw file in dir, and fails if there is
// none. A table is printed only whole: one whose benchmarks or baselines
// are missing is an error, not a row of zeros.
func run(w io.Writer, dir string) error {
	found := 0
	for _, t := range tables {
		f, err := os.Open(filepath.Join(dir, t.file))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		found++
		r, err := parse(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", t.file, err)
		}
		var table bytes.Buffer
		if err := t.print(&table, r); err != nil {
			return fmt.Errorf("%s: %w", t.file, err)
		}
		fmt.Fprintf(w, "%s (%d rounds)\n\n%s\n", t.file, r.rounds(), table.Bytes())
	}
	if found == 0 {
		return fmt.Errorf("no benchmark output in %s", dir)
	}
	return nil
}

// results holds, per benchmark (its name without "Benchmark" and the
// -GOMAXPROCS suffix) and unit ("ns/op", "allocs/op", "MB/s", ...), the
// value of each run, and the benchmarks in the order they first ran.
type results struct {
	vals  map[string]map[string][]float64
	order []string
}

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// parse reads go test's benchmark output; other lines are skipped.
func parse(r io.Reader) (results, error) {
	res := results{vals: map[string]map[string][]float64{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fields := strings.Fields(m[2])
		if len(fields)%2 != 0 {
			return res, fmt.Errorf("odd benchmark line %q", sc.Text())
		}
		units := res.vals[m[1]]
		if units == nil {
			units = map[string][]float64{}
			res.vals[m[1]] = units
			res.order = append(res.order, m[1])
		}
		for i := 0; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return res, fmt.Errorf("%q: %w", sc.Text(), err)
			}
			units[fields[i+1]] = append(units[fields[i+1]], v)
		}
	}
	return res, sc.Err()
}

// rounds returns the most runs any benchmark has.
func (r results) rounds() int {
	n := 0
	for _, units := range r.vals {
		n = max(n, len(units["ns/op"]))
	}
	return n
}

// median returns the median of name's values in unit.
func (r results) median(name, unit string) (float64, error) {
	v := slices.Clone(r.vals[name][unit])
	if len(v) == 0 {
		return 0, fmt.Errorf("no %s for %s", unit, name)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], nil
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, nil
}

// get is median for a table that reports only its first error: that is
// kept in *err, and once there is one, get returns 0.
func (r results) get(err *error, name, unit string) float64 {
	if *err != nil {
		return 0
	}
	v, e := r.median(name, unit)
	*err = e
	return v
}

// names returns, in the order they ran, the names below prefix/ of the
// benchmarks there, up to the next /.
func (r results) names(prefix string) []string {
	var out []string
	for _, k := range r.order {
		rest, ok := strings.CutPrefix(k, prefix+"/")
		if !ok {
			continue
		}
		rest, _, _ = strings.Cut(rest, "/")
		if !slices.Contains(out, rest) {
			out = append(out, rest)
		}
	}
	return out
}

func ns(v float64) string { return fmt.Sprintf("%.0f ns", v) }

func ratio(base, v float64) string { return fmt.Sprintf("%.1fx", base/v) }
