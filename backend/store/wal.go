package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// readWALHeader returns the database header (page 1's first 100 bytes) as
// the newest commit in the write-ahead log of the database at path (its
// -wal file) has it. found is
// false when there is no log, or no commit in it holds page 1.
//
// It only reads the file. SQLite can answer the same question only through
// the -shm: a connection creates that file when it is missing and rebuilds
// the index in it, and closing the last connection checkpoints the log
// into the main file. So a file that must be refused is judged from here,
// before SQLite opens it. The frames counted are the ones SQLite's own
// recovery counts (https://sqlite.org/fileformat.html#the_write_ahead_log):
// from the start, while their salts match the log's header and their
// checksums chain, up to the last commit frame.
func readWALHeader(path string) (h header, found bool, err error) {
	walPath := path + "-wal"
	f, err := os.Open(walPath)
	if errors.Is(err, fs.ErrNotExist) {
		return h, false, nil
	}
	if err != nil {
		return h, false, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	fail := func(err error) (header, bool, error) {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = nil // a log cut short ends at its last whole frame
		}
		if err != nil {
			err = fmt.Errorf("store: read %s: %w", walPath, err)
		}
		return h, found, err
	}

	var wh [32]byte
	if _, err := io.ReadFull(r, wh[:]); err != nil {
		return fail(err)
	}
	magic := binary.BigEndian.Uint32(wh[0:])
	if magic&^1 != 0x377f0682 {
		return h, false, nil // not a log SQLite would read
	}
	// The checksums read the bytes as big- or little-endian words, as the
	// machine that wrote the log did.
	order := binary.ByteOrder(binary.LittleEndian)
	if magic&1 == 1 {
		order = binary.BigEndian
	}
	pageSize := binary.BigEndian.Uint32(wh[8:])
	if pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return h, false, nil
	}
	s1, s2 := walChecksum(order, wh[:24], 0, 0)
	if s1 != binary.BigEndian.Uint32(wh[24:]) || s2 != binary.BigEndian.Uint32(wh[28:]) {
		return h, false, nil // SQLite ignores such a log, and so do we
	}
	salts := wh[16:24]

	frame := make([]byte, 24+pageSize)
	var latest []byte // page 1's header in the newest frame so far
	for {
		if _, err := io.ReadFull(r, frame); err != nil {
			return fail(err)
		}
		if !bytes.Equal(frame[8:16], salts) {
			return h, found, nil // left from before the log was restarted
		}
		s1, s2 = walChecksum(order, frame[:8], s1, s2)
		s1, s2 = walChecksum(order, frame[24:], s1, s2)
		if s1 != binary.BigEndian.Uint32(frame[16:]) || s2 != binary.BigEndian.Uint32(frame[20:]) {
			return h, found, nil // torn or stale: the valid log ends here
		}
		switch binary.BigEndian.Uint32(frame[0:]) {
		case 0:
			return h, found, nil
		case 1:
			latest = append(latest[:0], frame[24:24+100]...)
		}
		if commit := binary.BigEndian.Uint32(frame[4:]) != 0; commit && latest != nil {
			var ok bool
			if h, ok = parseHeader(latest); !ok {
				return h, true, &OpenError{Path: path, Err: ErrNotSQLite}
			}
			found = true
		}
	}
}

// walChecksum continues the log's running checksum (s1, s2) over b, whose
// length is a multiple of 8.
func walChecksum(order binary.ByteOrder, b []byte, s1, s2 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s1 += order.Uint32(b[i:]) + s2
		s2 += order.Uint32(b[i+4:]) + s1
	}
	return s1, s2
}
