package catalog

import (
	"bytes"
	"testing"

	"smart"
)

// TestWriteTable compares the table of a rented and an unrented GPU with text checked by hand:
// no compute capability and no price print as "-".
func TestWriteTable(t *testing.T) {
	gpus := []smart.GPU{
		{Name: "A100-40GB", Arch: "Ampere", ComputeCapability: "8.0", SMs: 108, MemoryGB: 40, BandwidthGBs: 1555, FP64TFLOPS: 9.7, FP32TFLOPS: 19.5,
			Price: &smart.Price{USDPerHour: 3.5, Instance: "p4d", Provider: "AWS", Region: "us-east-1", Read: "2026-11-09"}},
		{Name: "W6600", Arch: "RDNA2", SMs: 28, MemoryGB: 8, BandwidthGBs: 224, FP64TFLOPS: 0.65, FP32TFLOPS: 10.4},
	}
	want := `name       arch    CC   SMs  memory GB  GB/s  FP64 TF  FP32 TF  $/GPU-h  instance  
A100-40GB  Ampere  8.0  108  40         1555  9.7      19.5     3.500    p4d       
W6600      RDNA2   -    28   8          224   0.65     10.4     -        -         

Sources: every figure cites the document it comes from: a datasheet, whitepaper, CUDA Programming
Guide table, or a review where the maker gives none (smart gpus --json). Prices: on-demand, per GPU,
with the provider, region and date read; - where not rented.
Prices: AWS us-east-1, read 2026-11-09.
`
	var b bytes.Buffer
	if err := WriteTable(&b, gpus); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
