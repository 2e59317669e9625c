// tests/workloads/unwind_go.go: a known Go call chain for the .gopclntab unwinder.
//
// main.main -> main.chainOuter -> main.chainMid -> main.chainLeaf, none
// inlined. chainLeaf is a frameless leaf (no calls, no stack frame: Go
// does not save rbp there), so a frame-pointer walk skips chainMid.
//
//   unwind_go [SECONDS]            the chain (default 2)
//   unwind_go [SECONDS] preempt    two goroutines on one P spinning in
//                                  main.spin (no calls): sysmon preempts
//                                  them with signals (runtime.sigtramp)
//   unwind_go [SECONDS] gc         two goroutines allocating hard (trees of
//                                  pointers, kept and dropped): the GC's
//                                  work runs on the system stack
//                                  (runtime.systemstack), mark assists
//                                  from main.alloc's own goroutines
package main

import (
	"os"
	"runtime"
	"strconv"
	"time"
)

var sink uint64

//go:noinline
func chainLeaf(seed uint64) uint64 {
	h := seed
	for i := uint64(0); i < 200000; i++ {
		h = (h ^ i) * 1099511628211
	}
	return h
}

//go:noinline
func chainMid(seed uint64) uint64 {
	return chainLeaf(seed) ^ (seed >> 3)
}

//go:noinline
func chainOuter(seed uint64) uint64 {
	return chainMid(seed+1) + seed*7
}

//go:noinline
func spin(stop *int32, out *uint64) {
	h := uint64(1)
	for *stop == 0 {
		h = (h ^ 7) * 1099511628211
	}
	*out = h
}

func preempt(d time.Duration) {
	runtime.GOMAXPROCS(1)
	var stop int32
	var a, b uint64
	go spin(&stop, &a)
	go spin(&stop, &b)
	time.Sleep(d)
	stop = 1
	sink = a + b
}

type node struct {
	left, right *node
	pad         [6]uint64
}

//go:noinline
func tree(depth int) *node {
	if depth == 0 {
		return &node{}
	}
	return &node{left: tree(depth - 1), right: tree(depth - 1)}
}

//go:noinline
func alloc(end time.Time, done chan<- int) {
	var keep [64]*node
	n := 0
	for time.Now().Before(end) {
		keep[n%len(keep)] = tree(10)
		n++
	}
	done <- n
}

func gc(d time.Duration) {
	end := time.Now().Add(d)
	done := make(chan int)
	go alloc(end, done)
	go alloc(end, done)
	sink = uint64(<-done + <-done)
}

func main() {
	secs := 2.0
	if len(os.Args) > 1 {
		secs, _ = strconv.ParseFloat(os.Args[1], 64)
	}
	d := time.Duration(secs * float64(time.Second))
	if len(os.Args) > 2 && os.Args[2] == "preempt" {
		preempt(d)
		return
	}
	if len(os.Args) > 2 && os.Args[2] == "gc" {
		gc(d)
		return
	}
	end := time.Now().Add(d)
	seed := uint64(1)
	for time.Now().Before(end) {
		sink += chainOuter(seed)
		seed++
	}
}
