package memsize

// What the Go allocator (Go 1.22 and later) hands out for a request of n
// bytes: small objects come in size classes, large ones in whole pages;
// noscan objects under 16 bytes are packed into shared 16-byte blocks by
// the tiny allocator; a pointerful object above 512 bytes carries an
// 8-byte header. The classes are internal/runtime/gc's SizeClassToSize.

var classSizes = [...]uint16{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
	2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880,
	12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

const (
	maxSmallSize      = 32768
	pageSize          = 8192
	tinySize          = 16
	mallocHeaderAbove = 512 // pointerful objects above this carry a header
	mallocHeaderSize  = 8
	smallStep         = 8   // roundUp8[(n+7)/8] for n <= 1024
	largeStep         = 128 // roundUp128[(n-1024+127)/128] for 1024 < n <= 32768
)

// roundUp8 and roundUp128 map a request to its size class in one lookup.
var (
	roundUp8   [1024/smallStep + 1]uint16
	roundUp128 [(maxSmallSize-1024)/largeStep + 1]uint16
)

func init() {
	c := 0
	for i := range roundUp8 {
		for int(classSizes[c]) < i*smallStep {
			c++
		}
		roundUp8[i] = classSizes[c]
	}
	for i := range roundUp128 {
		for int(classSizes[c]) < 1024+i*largeStep {
			c++
		}
		roundUp128[i] = classSizes[c]
	}
}

// allocSize returns the bytes an allocation of n bytes takes; pointers
// tells whether the object holds pointers (noscan objects may be tiny).
func allocSize(n uintptr, pointers bool) uintptr {
	switch {
	case n == 0:
		return 0
	case !pointers && n < tinySize:
		return n
	case pointers && n > mallocHeaderAbove:
		n += mallocHeaderSize
	}
	switch {
	case n <= 1024:
		return uintptr(roundUp8[(n+smallStep-1)/smallStep])
	case n <= maxSmallSize:
		return uintptr(roundUp128[(n-1024+largeStep-1)/largeStep])
	}
	return (n + pageSize - 1) &^ (pageSize - 1)
}
