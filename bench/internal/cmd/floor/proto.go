package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A protobuf watch stream is a sequence of frames, each a 4-byte big-endian
// length and a metav1.WatchEvent: field 1 the type, field 2 a RawExtension
// whose field 1 holds the object as the protobuf serializer writes it: the
// magic "k8s\x00" then a runtime.Unknown whose field 2 is the object's bytes.
// This file reads just enough of that to find frames, types and objects,
// without copying.

// protobufMagic starts every object the protobuf serializer writes.
var protobufMagic = []byte("k8s\x00")

// maxFrame bounds a frame: the server's own limit on an object is far below.
const maxFrame = 64 << 20

// frameReader reads length-delimited frames into one reused buffer.
type frameReader struct {
	r   io.Reader
	hdr [4]byte
	buf []byte
}

// next returns the next frame, valid until the following call.
func (f *frameReader) next() ([]byte, error) {
	if _, err := io.ReadFull(f.r, f.hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(f.hdr[:])
	if n > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes is larger than %d", n, maxFrame)
	}
	if cap(f.buf) < int(n) {
		f.buf = make([]byte, n)
	}
	f.buf = f.buf[:n]
	if _, err := io.ReadFull(f.r, f.buf); err != nil {
		return nil, fmt.Errorf("frame of %d bytes: %w", n, io.ErrUnexpectedEOF)
	}
	return f.buf, nil
}

// field returns the bytes of the first length-delimited field num of msg.
func field(msg []byte, num uint64) ([]byte, error) {
	for len(msg) > 0 {
		tag, n := binary.Uvarint(msg)
		if n <= 0 {
			return nil, errors.New("bad protobuf tag")
		}
		msg = msg[n:]
		switch tag & 7 {
		case 0: // varint
			if _, n = binary.Uvarint(msg); n <= 0 {
				return nil, errors.New("bad protobuf varint")
			}
			msg = msg[n:]
		case 1: // fixed64
			if len(msg) < 8 {
				return nil, io.ErrUnexpectedEOF
			}
			msg = msg[8:]
		case 5: // fixed32
			if len(msg) < 4 {
				return nil, io.ErrUnexpectedEOF
			}
			msg = msg[4:]
		case 2: // length-delimited
			l, n := binary.Uvarint(msg)
			if n <= 0 || l > uint64(len(msg)-n) {
				return nil, errors.New("bad protobuf length")
			}
			if tag>>3 == num {
				return msg[n : n+int(l)], nil
			}
			msg = msg[n+int(l):]
		default:
			return nil, fmt.Errorf("unsupported protobuf wire type %d", tag&7)
		}
	}
	return nil, fmt.Errorf("protobuf field %d missing", num)
}

// eventType returns the type of a WatchEvent frame ("ADDED", "BOOKMARK", ...).
func eventType(frame []byte) ([]byte, error) { return field(frame, 1) }

// eventObject returns the protobuf bytes of a WatchEvent frame's object.
func eventObject(frame []byte) ([]byte, error) {
	ext, err := field(frame, 2)
	if err != nil {
		return nil, err
	}
	raw, err := field(ext, 1)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(raw, protobufMagic) {
		return nil, errors.New("event object is not protobuf-encoded")
	}
	return field(raw[len(protobufMagic):], 2)
}

// readInitialEvents reads WatchEvent frames up to the initial-events-end
// bookmark and returns the number of ADDED events. decode, when not nil,
// gets each ADDED object's bytes.
func readInitialEvents(fr *frameReader, decode func([]byte) error) (int, error) {
	n := 0
	for {
		frame, err := fr.next()
		if err != nil {
			return n, fmt.Errorf("after %d objects, before the initial-events-end bookmark: %w", n, err)
		}
		typ, err := eventType(frame)
		if err != nil {
			return n, err
		}
		switch string(typ) {
		case "ADDED":
			n++
			if decode == nil {
				continue
			}
			obj, err := eventObject(frame)
			if err != nil {
				return n, err
			}
			if err := decode(obj); err != nil {
				return n, fmt.Errorf("decode object %d: %w", n, err)
			}
		case "BOOKMARK":
			end, err := isInitialEventsEnd(frame)
			if err != nil {
				return n, err
			}
			if end {
				return n, nil
			}
		case "ERROR":
			return n, statusError(frame)
		default:
			return n, fmt.Errorf("%s event before the initial-events-end bookmark", typ)
		}
	}
}

// isInitialEventsEnd tells whether a BOOKMARK frame ends the initial events.
// Every object keeps its ObjectMeta in field 1.
func isInitialEventsEnd(frame []byte) (bool, error) {
	obj, err := eventObject(frame)
	if err != nil {
		return false, err
	}
	b, err := field(obj, 1)
	if err != nil {
		return false, err
	}
	var meta metav1.ObjectMeta
	if err := meta.Unmarshal(b); err != nil {
		return false, fmt.Errorf("bookmark metadata: %w", err)
	}
	return meta.Annotations[metav1.InitialEventsAnnotationKey] == "true", nil
}

// statusError turns an ERROR frame into an error.
func statusError(frame []byte) error {
	obj, err := eventObject(frame)
	if err != nil {
		return fmt.Errorf("ERROR event: %w", err)
	}
	var st metav1.Status
	if err := st.Unmarshal(obj); err != nil {
		return fmt.Errorf("ERROR event: %w", err)
	}
	return fmt.Errorf("ERROR event: %s (%s, %d)", st.Message, st.Reason, st.Code)
}

// readLive reads the live events that follow the initial ones until the
// stream ends, calling decode with each added or modified object's bytes.
func readLive(fr *frameReader, decode func([]byte) error) error {
	for {
		frame, err := fr.next()
		if err != nil {
			return err
		}
		typ, err := eventType(frame)
		if err != nil {
			return err
		}
		switch string(typ) {
		case "ADDED", "MODIFIED":
			obj, err := eventObject(frame)
			if err != nil {
				return err
			}
			if err := decode(obj); err != nil {
				return err
			}
		case "ERROR":
			return statusError(frame)
		}
	}
}
