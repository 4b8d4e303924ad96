// Package gguf writes tiny GGUF model files whose output is scripted, so that a
// real Ollama server can be driven through a whole agent conversation with
// deterministic replies, real tool-call parsing included.
//
// A Script lists what the model says at each assistant turn. WriteFile turns it
// into a one-layer llama model with hand-set weights (a lookup table, not a
// trained network), and Template gives the Modelfile TEMPLATE that makes Ollama
// pick the right turn. See script.go for how the two fit together.
package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// The parts of the GGUF v3 format this package needs: little-endian, a header,
// key/value metadata, tensor descriptors, then aligned tensor data.
const (
	ggufMagic     = "GGUF"
	ggufVersion   = 3
	ggufAlignment = 32

	typeUint32  = 4
	typeFloat32 = 6
	typeBool    = 7
	typeString  = 8
	typeArray   = 9

	tensorF32 = 0
)

// kv is one metadata entry. Value is uint32, float32, bool, string, []string,
// []float32 or []int32.
type kv struct {
	Key   string
	Value any
}

// tensor is an F32 tensor. Dims are in GGUF order: Dims[0] varies fastest, so
// a [cols, rows] matrix is stored row after row.
type tensor struct {
	Name string
	Dims []uint64
	Data []float32
}

// encoder writes GGUF primitives, remembering the first error.
type encoder struct {
	w   io.Writer
	n   int64
	err error
}

func (e *encoder) raw(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += int64(n)
	e.err = err
}

func (e *encoder) u32(v uint32) { e.raw(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *encoder) u64(v uint64) { e.raw(binary.LittleEndian.AppendUint64(nil, v)) }
func (e *encoder) f32(v float32) {
	e.u32(math.Float32bits(v))
}

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

func (e *encoder) pad() {
	if r := e.n % ggufAlignment; r != 0 {
		e.raw(make([]byte, ggufAlignment-r))
	}
}

func (e *encoder) value(v any) error {
	switch v := v.(type) {
	case uint32:
		e.u32(typeUint32)
		e.u32(v)
	case float32:
		e.u32(typeFloat32)
		e.f32(v)
	case bool:
		e.u32(typeBool)
		if v {
			e.raw([]byte{1})
		} else {
			e.raw([]byte{0})
		}
	case string:
		e.u32(typeString)
		e.str(v)
	case []string:
		e.u32(typeArray)
		e.u32(typeString)
		e.u64(uint64(len(v)))
		for _, s := range v {
			e.str(s)
		}
	case []float32:
		e.u32(typeArray)
		e.u32(typeFloat32)
		e.u64(uint64(len(v)))
		for _, f := range v {
			e.f32(f)
		}
	case []int32:
		e.u32(typeArray)
		e.u32(5) // int32
		e.u64(uint64(len(v)))
		for _, i := range v {
			e.u32(uint32(i))
		}
	default:
		return fmt.Errorf("gguf: unsupported metadata value %T", v)
	}
	return nil
}

// encode writes a complete GGUF v3 file.
func encode(w io.Writer, kvs []kv, tensors []tensor) error {
	e := &encoder{w: w}
	e.raw([]byte(ggufMagic))
	e.u32(ggufVersion)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, m := range kvs {
		e.str(m.Key)
		if err := e.value(m.Value); err != nil {
			return err
		}
	}

	var offset uint64
	for _, t := range tensors {
		count := uint64(1)
		for _, d := range t.Dims {
			count *= d
		}
		if count != uint64(len(t.Data)) {
			return fmt.Errorf("gguf: tensor %s has %d values, dims %v need %d", t.Name, len(t.Data), t.Dims, count)
		}
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(tensorF32)
		e.u64(offset)
		offset += alignUp(4 * count)
	}

	e.pad()
	buf := make([]byte, 0, 4096)
	for _, t := range tensors {
		for _, f := range t.Data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
			if len(buf) == cap(buf) {
				e.raw(buf)
				buf = buf[:0]
			}
		}
		e.raw(buf)
		buf = buf[:0]
		e.pad()
	}
	return e.err
}

func alignUp(n uint64) uint64 {
	return (n + ggufAlignment - 1) / ggufAlignment * ggufAlignment
}
