package models

import (
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
	"slices"
)

// Instances are the instances a model was trained on (each a stencil, or a foreign kernel, on a
// GPU), kept as the sorted 64-bit FNV-1a hashes of their InstanceKey: enough to tell whether
// data scored were trained on, wherever they lie and whatever their data set is called (a copy,
// a merge, a re-import), at 8 bytes an instance.
type Instances struct {
	Count  int    `json:"count"`
	Hashes string `json:"fnv64a"` // base64 of the sorted hashes, big-endian
	hashes []uint64
}

// InstanceKey names an instance: the stencil's ID (or the foreign kernel's name) and the GPU.
func InstanceKey(id, gpu string) string { return id + "|" + gpu }

func instanceHash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// NewInstances keeps the instances named by keys (InstanceKey), each once.
func NewInstances(keys []string) *Instances {
	hs := make([]uint64, 0, len(keys))
	for _, k := range keys {
		hs = append(hs, instanceHash(k))
	}
	slices.Sort(hs)
	hs = slices.Compact(hs)
	b := make([]byte, 8*len(hs))
	for i, h := range hs {
		binary.BigEndian.PutUint64(b[8*i:], h)
	}
	return &Instances{Count: len(hs), Hashes: base64.StdEncoding.EncodeToString(b), hashes: hs}
}

// Has reports whether the instance named key (InstanceKey) is among in. A set whose hashes do
// not decode holds nothing.
func (in *Instances) Has(key string) bool {
	if in.hashes == nil && in.Hashes != "" {
		b, err := base64.StdEncoding.DecodeString(in.Hashes)
		if err != nil || len(b)%8 != 0 {
			return false
		}
		in.hashes = make([]uint64, len(b)/8)
		for i := range in.hashes {
			in.hashes[i] = binary.BigEndian.Uint64(b[8*i:])
		}
	}
	_, found := slices.BinarySearch(in.hashes, instanceHash(key))
	return found
}
