// Package snapshotfile reads and writes the files a Syncer's warm start
// comes from: a header naming whose objects they are and at which
// resourceVersion, then the objects, each in a codec the caller gives.
//
// What it promises:
//
//   - A file holds either the previous snapshot or the whole new one: Write
//     writes a temporary file in the same folder, syncs it and renames it.
//     Files are readable by their owner only (objects may be Secrets).
//   - A file that is truncated, damaged, of another format or of another
//     owner (Header.Mismatch) is refused as a whole: Read returns an error
//     and nothing of it may be used.
//   - An object the codec cannot encode is left out, and the others
//     written: Write returns those it left out, and the header counts
//     the objects the file holds.
//   - Nothing of a file is decoded before its checksum has been verified,
//     and what Read allocates is bounded by the file's size, whatever the
//     file claims.
//
// Layout, every length an unsigned varint:
//
//	"syncer-gen/snapshot\n"  magic
//	format version
//	length, header           JSON: whose objects these are (Header)
//	length, object           once per object, length > 0, in the header's encoding
//	0                        end of the objects
//	CRC-32C                  4 bytes, big-endian, of every byte before it
package snapshotfile
