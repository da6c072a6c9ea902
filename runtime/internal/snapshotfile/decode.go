package snapshotfile

import (
	"fmt"
	goruntime "runtime"
	"sync"
)

// batchBytes is about how many bytes of object frames one decoder takes
// at a time.
const batchBytes = 256 << 10

// batch is object frames copied out of the file, for a decoder: frame i
// is data[ends[i-1]:ends[i]], the object first+i.
type batch struct {
	first int
	data  []byte
	ends  []int
}

// decodeObjects reads the object frames r has left, up to the end mark,
// and decodes them with decode on every core (GOMAXPROCS decoders; decode
// must be safe for concurrent use): a warm start waits for the decoding,
// which is most of what reading a snapshot costs (issue 44). The frames
// are read in order, in batches of about batchBytes, and each object put
// at its index: the result is in the file's order. There must be exactly
// want objects; an error names the first object that failed.
func decodeObjects[T any](r *frameReader, want int, decode func([]byte) (T, error)) ([]T, error) {
	objs := make([]T, want)
	workers := max(1, goruntime.GOMAXPROCS(0))
	work := make(chan *batch, workers)
	free := make(chan *batch, 2*workers+1) // batches done with, for the reader to fill again
	var mu sync.Mutex
	failed, failure := want, error(nil) // the first object that failed, by index
	fail := func(i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if i < failed {
			failed, failure = i, err
		}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				start := 0
				for j, end := range b.ends {
					o, err := decode(b.data[start:end])
					if err != nil {
						fail(b.first+j, err)
						break
					}
					objs[b.first+j] = o
					start = end
				}
				select {
				case free <- b:
				default:
				}
			}
		})
	}
	n, err := readBatches(r, want, work, free)
	close(work)
	wg.Wait()
	switch {
	case failure != nil && failed < n || failure != nil && err == nil:
		return nil, fmt.Errorf("object %d: %w", failed+1, failure)
	case err != nil:
		return nil, err
	}
	return objs, nil
}

// readBatches reads the object frames of r into batches for work, taking
// emptied ones back from free, and returns how many frames it read.
func readBatches(r *frameReader, want int, work chan<- *batch, free <-chan *batch) (int, error) {
	n := 0
	next := func() *batch {
		select {
		case b := <-free:
			b.first, b.data, b.ends = n, b.data[:0], b.ends[:0]
			return b
		default:
			return &batch{first: n, data: make([]byte, 0, min(batchBytes, r.left))} // bounded by the file, as every allocation of Read
		}
	}
	b := next()
	for {
		size, err := r.uvarint()
		if err == nil && size > MaxObjectLength {
			err = fmt.Errorf("length %d over the limit of %d", size, uint64(MaxObjectLength))
		}
		if err == nil && size > uint64(r.left) {
			err = fmt.Errorf("length %d, %d bytes left", size, r.left)
		}
		if err != nil {
			return n, fmt.Errorf("object %d: %w", n+1, err)
		}
		if size == 0 {
			break
		}
		if n == want {
			return n, fmt.Errorf("more objects than the %d the header counts", want)
		}
		start := len(b.data)
		b.data = append(b.data, make([]byte, size)...)
		if err := r.full(b.data[start:]); err != nil {
			return n, fmt.Errorf("object %d: %w", n+1, err)
		}
		b.ends = append(b.ends, len(b.data))
		n++
		if len(b.data) >= batchBytes {
			work <- b
			b = next()
		}
	}
	if len(b.ends) > 0 {
		work <- b
	}
	if n != want {
		return n, fmt.Errorf("%d objects, the header counts %d", n, want)
	}
	return n, nil
}
