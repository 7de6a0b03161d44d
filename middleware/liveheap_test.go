package middleware

import (
	"os"
	"runtime"
	"strconv"
)

// The benchmarks run with the test binary's own heap, a few MiB, so the
// garbage collector runs every few MiB allocated. A server holds more.
// CTURI_BENCH_LIVE_HEAP_MIB=N keeps about N MiB live while the benchmarks
// run: small linked objects with pointers, which the collector must mark
// each cycle as it marks a server's state, or with
// CTURI_BENCH_LIVE_HEAP_FLAT=1 pointer-free blocks, which it need not
// scan. docs/BENCHMARKS.md has what the request rewrite costs with each.
var liveHeap struct {
	linked *liveNode
	flat   [][]byte
}

type liveNode struct {
	next *liveNode
	val  *int
	_    [6]int // 64 bytes a node
}

func init() {
	v := os.Getenv("CTURI_BENCH_LIVE_HEAP_MIB")
	if v == "" {
		return
	}
	mib, err := strconv.Atoi(v)
	if err != nil || mib <= 0 {
		panic("CTURI_BENCH_LIVE_HEAP_MIB wants a number of MiB above 0, not " + strconv.Quote(v))
	}
	if os.Getenv("CTURI_BENCH_LIVE_HEAP_FLAT") == "1" {
		for range mib {
			liveHeap.flat = append(liveHeap.flat, make([]byte, 1<<20))
		}
	} else {
		for range mib << 20 / (64 + 8) {
			liveHeap.linked = &liveNode{next: liveHeap.linked, val: new(int)}
		}
	}
	runtime.GC()
}
