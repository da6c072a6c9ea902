package wire

import (
	"fmt"
	"io"
	"sync"

	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
)

// Frames reads a watch response's frames and decodes each into a
// WatchEvent, as streaming.NewDecoder's decoder does, but into a buffer
// taken from a pool for the frame and given back once the event's object
// is decoded (Release), rather than a buffer of each stream's own, grown to
// its largest frame and kept while the stream is open: 1,000 names of
// Secrets of 64 KiB kept 128 MiB of such buffers (issue 45). The event's
// Object.Raw points into the buffer (wire decodes the frame without a
// copy): it is read before Release, and nothing decoded from it keeps it
// (every decoder copies what it keeps, as it did when the next frame was
// read into the same buffer).
type Frames struct {
	r       io.ReadCloser // the framer's: io.ErrShortBuffer for a frame larger than the buffer
	decoder kruntime.Decoder
	small   []byte  // the stream's own buffer, for a frame of up to 1 KiB (bookmarks, small objects)
	buf     *[]byte // a larger frame's, from framePool, until Release
	drain   bool    // a frame over maxFrame is being read past
	// A JSON framer reads a frame larger than the buffer into a slice of
	// its own (an allocation a frame), then hands it over in pieces: a
	// JSON stream reads each frame into a buffer as large as the last.
	json bool
	last int
}

// maxFrame is the largest frame decoded, as streaming's (16 MiB).
const maxFrame = 16 << 20

var framePool = sync.Pool{New: func() any { return new([]byte) }}

// NewFrames reads the frames of r (a framer's reader) with decoder; json
// tells that r is a JSON framer's.
func NewFrames(r io.ReadCloser, decoder kruntime.Decoder, json bool) *Frames {
	return &Frames{r: r, decoder: decoder, small: make([]byte, 1024), json: json}
}

// Decode reads the next frame and decodes it into into. A protobuf
// stream waiting for its next frame holds its small buffer only; a JSON
// stream whose last frame was larger, a pool's buffer as large.
func (f *Frames) Decode(into kruntime.Object) (kruntime.Object, error) {
	buf := f.small
	if f.json && f.last > len(buf) {
		buf = f.grow(nil, f.last)
	}
	base := 0
	for {
		n, err := f.r.Read(buf[base:])
		if err == io.ErrShortBuffer {
			if n == 0 {
				return nil, fmt.Errorf("got short buffer with n=0, base=%d, cap=%d", base, cap(buf))
			}
			if f.drain {
				continue
			}
			if len(buf) < maxFrame {
				base += n
				buf = f.grow(buf[:base], 2*len(buf))
				continue
			}
			f.drain = true // read the rest of the frame, until a read that is not short
			return nil, streaming.ErrObjectTooLarge
		}
		if err != nil {
			return nil, err
		}
		if f.drain {
			f.drain = false
			continue
		}
		base += n
		break
	}
	f.last = base
	obj, _, err := f.decoder.Decode(buf[:base], nil, into)
	return obj, err
}

// grow returns a buffer of n bytes that starts with read: the pool's
// buffer, grown where it is smaller.
func (f *Frames) grow(read []byte, n int) []byte {
	if f.buf == nil {
		f.buf = framePool.Get().(*[]byte)
	}
	b := *f.buf
	if cap(b) < n {
		b = make([]byte, n)
	}
	b = b[:n]
	copy(b, read)
	*f.buf = b
	return b
}

// Release gives the frame's buffer back: what was decoded from it is read
// (stream.next, after each frame).
func (f *Frames) Release() {
	if f.buf != nil {
		framePool.Put(f.buf)
		f.buf = nil
	}
}
