package gpuinfo

import (
	"errors"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"

	"smart"
)

// TestOpenSystem makes the real NVML call: on a machine without a driver it must give ErrNoGPU
// with the plain message, never a panic; on a machine with a GPU it must describe device 0.
func TestOpenSystem(t *testing.T) {
	n, err := Open()
	if err != nil {
		if !errors.Is(err, ErrNoGPU) {
			t.Fatalf("Open() = %v; want ErrNoGPU or success", err)
		}
		if err.Error() != "no NVIDIA driver or GPU found" {
			t.Fatalf("message %q", err)
		}
		return
	}
	defer n.Close()
	d, err := n.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Info().Name == "" || d.Info().Driver == "" {
		t.Fatalf("incomplete info %+v", d.Info())
	}
}

func TestOpenFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		init   nvml.Return
		count  int
		noGPU  bool
		others bool
	}{
		{"library missing", nvml.ERROR_LIBRARY_NOT_FOUND, 0, true, false},
		{"driver not loaded", nvml.ERROR_DRIVER_NOT_LOADED, 0, true, false},
		{"no devices", nvml.SUCCESS, 0, true, false},
		{"other failure", nvml.ERROR_UNKNOWN, 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := dgxa100.New()
			s.InitFunc = func() nvml.Return { return tc.init }
			s.DeviceGetCountFunc = func() (int, nvml.Return) { return tc.count, nvml.SUCCESS }
			_, err := OpenLibrary(s)
			if got := errors.Is(err, ErrNoGPU); got != tc.noGPU {
				t.Fatalf("OpenLibrary error %v; ErrNoGPU %v, want %v", err, got, tc.noGPU)
			}
			if tc.others && err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestDeviceOnMockServer(t *testing.T) {
	s := dgxa100.New()
	n, err := OpenLibrary(s)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if c, _ := n.Count(); c != 8 {
		t.Fatalf("count %d, want 8", c)
	}
	if _, err := n.Device(8); err == nil {
		t.Fatal("device 8 of 8 opened")
	}
	d, err := n.Device(3)
	if err != nil {
		t.Fatal(err)
	}
	mock := s.Devices[3].(*dgxa100.Device)
	want := Info{Index: 3, Name: "Mock NVIDIA A100-SXM4-40GB", UUID: mock.UUID, ComputeCapability: "8.0",
		MemoryMiB: 40960, Driver: "550.54.15", CUDA: "12.4"}
	if d.Info() != want {
		t.Fatalf("info %+v\nwant %+v", d.Info(), want)
	}
	mock.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_SM {
			return 1410, nvml.SUCCESS
		}
		return 1215, nvml.SUCCESS
	}
	mock.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 251_500, nvml.SUCCESS }
	mock.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return 61, nvml.SUCCESS }
	r, err := d.Read()
	if err != nil {
		t.Fatal(err)
	}
	if want := (smart.Readings{SMClockMHz: 1410, MemClockMHz: 1215, PowerW: 251.5, TempC: 61}); r != want {
		t.Fatalf("readings %+v, want %+v", r, want)
	}
	mock.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
	if _, err := d.Read(); err == nil {
		t.Fatal("unsupported power reading gave no error")
	}
}

func TestCUDAVersion(t *testing.T) {
	for v, want := range map[int]string{12040: "12.4", 11080: "11.8", 10000: "10.0", 12100: "12.10"} {
		if got := CUDAVersion(v); got != want {
			t.Errorf("CUDAVersion(%d) = %q, want %q", v, got, want)
		}
	}
}

// TestFirstGPU: the first GPU's name, or ErrNoGPU where NVML finds no driver.
func TestFirstGPU(t *testing.T) {
	s := dgxa100.New()
	if name, err := firstGPU(s); err != nil || name != "Mock NVIDIA A100-SXM4-40GB" {
		t.Errorf("got %q, %v", name, err)
	}
	s = dgxa100.New()
	s.InitFunc = func() nvml.Return { return nvml.ERROR_DRIVER_NOT_LOADED }
	if _, err := firstGPU(s); !errors.Is(err, ErrNoGPU) {
		t.Errorf("no driver: got %v, want ErrNoGPU", err)
	}
}
