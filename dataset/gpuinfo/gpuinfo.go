// Package gpuinfo reads what a data set records about the GPU it was measured on: the device's
// identity (NVML name, UUID, compute capability, memory), the driver and CUDA versions, and the
// clocks, power draw and temperature around a measurement.
//
// It uses cgo through github.com/NVIDIA/go-nvml, which loads libnvidia-ml at run time rather than
// at link time: the package builds, and programs using it run, on machines without a GPU, where
// Open returns ErrNoGPU ("no NVIDIA driver or GPU found").
package gpuinfo

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"smart"
)

// ErrNoGPU is returned by Open where the NVIDIA driver library is missing, not loaded, or sees
// no device.
var ErrNoGPU = errors.New("no NVIDIA driver or GPU found")

// Info is a device's identity and the software it runs under.
type Info struct {
	Index             int    `json:"index"`
	Name              string `json:"name"` // as NVML names it, e.g. "NVIDIA A100-PCIE-40GB"
	UUID              string `json:"uuid"`
	ComputeCapability string `json:"compute_capability"` // e.g. "8.0"
	MemoryMiB         int    `json:"memory_mib"`
	Driver            string `json:"driver_version"` // e.g. "550.54.15"
	CUDA              string `json:"cuda_version"`   // the CUDA version the driver supports, e.g. "12.4"
}

// NVML is an initialised NVML library. Close it when done.
type NVML struct {
	lib nvml.Interface
}

// Open loads and initialises the system's NVML library. Without a driver or a GPU the error is
// ErrNoGPU.
func Open() (*NVML, error) { return OpenLibrary(nvml.New()) }

// OpenLibrary initialises lib, an NVML implementation (the real library or a mock).
func OpenLibrary(lib nvml.Interface) (*NVML, error) {
	switch ret := lib.Init(); ret {
	case nvml.SUCCESS:
	case nvml.ERROR_LIBRARY_NOT_FOUND, nvml.ERROR_DRIVER_NOT_LOADED, nvml.ERROR_NO_PERMISSION:
		return nil, ErrNoGPU
	default:
		return nil, fmt.Errorf("initialising NVML: %w", ret)
	}
	n := &NVML{lib: lib}
	count, err := n.Count()
	if err == nil && count == 0 {
		err = ErrNoGPU
	}
	if err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

// FirstGPU is the name of the system's first GPU (NVML's device 0): the GPU a caller means
// where it names none. Without a driver or a GPU the error is ErrNoGPU.
func FirstGPU() (string, error) { return firstGPU(nvml.New()) }

func firstGPU(lib nvml.Interface) (string, error) {
	n, err := OpenLibrary(lib)
	if err != nil {
		return "", fmt.Errorf("finding the GPU: %w", err)
	}
	defer n.Close()
	dev, err := n.Device(0)
	if err != nil {
		return "", fmt.Errorf("finding the GPU: %w", err)
	}
	return dev.Info().Name, nil
}

// Close shuts NVML down.
func (n *NVML) Close() error {
	if ret := n.lib.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("shutting NVML down: %w", ret)
	}
	return nil
}

// Count is the number of devices NVML sees.
func (n *NVML) Count() (int, error) {
	c, ret := n.lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return 0, fmt.Errorf("counting GPUs: %w", ret)
	}
	return c, nil
}

// Device opens device index (0-based, in NVML's order, which follows PCI bus IDs and may differ
// from CUDA's default order unless CUDA_DEVICE_ORDER=PCI_BUS_ID).
func (n *NVML) Device(index int) (*Device, error) {
	count, err := n.Count()
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= count {
		return nil, fmt.Errorf("GPU %d does not exist: NVML sees %d (0 to %d)", index, count, count-1)
	}
	h, ret := n.lib.DeviceGetHandleByIndex(index)
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("opening GPU %d: %w", index, ret)
	}
	info := Info{Index: index}
	if info.Name, ret = h.GetName(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("GPU %d: reading its name: %w", index, ret)
	}
	if info.UUID, ret = h.GetUUID(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("GPU %d: reading its UUID: %w", index, ret)
	}
	major, minor, ret := h.GetCudaComputeCapability()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("GPU %d: reading its compute capability: %w", index, ret)
	}
	info.ComputeCapability = fmt.Sprintf("%d.%d", major, minor)
	mem, ret := h.GetMemoryInfo()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("GPU %d: reading its memory size: %w", index, ret)
	}
	info.MemoryMiB = int(mem.Total >> 20)
	if info.Driver, ret = n.lib.SystemGetDriverVersion(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("reading the driver version: %w", ret)
	}
	cuda, ret := n.lib.SystemGetCudaDriverVersion()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("reading the CUDA version: %w", ret)
	}
	info.CUDA = CUDAVersion(cuda)
	return &Device{h: h, info: info}, nil
}

// CUDAVersion writes NVML's integer CUDA version (1000*major + 10*minor) as "major.minor".
func CUDAVersion(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// Device is one opened GPU.
type Device struct {
	h    nvml.Device
	info Info
}

// Info returns the device's identity, read when it was opened.
func (d *Device) Info() Info { return d.info }

// Read samples the current SM and memory clocks, power draw and temperature.
func (d *Device) Read() (smart.Readings, error) {
	var r smart.Readings
	sm, ret := d.h.GetClockInfo(nvml.CLOCK_SM)
	if ret != nvml.SUCCESS {
		return r, fmt.Errorf("GPU %d: reading the SM clock: %w", d.info.Index, ret)
	}
	mem, ret := d.h.GetClockInfo(nvml.CLOCK_MEM)
	if ret != nvml.SUCCESS {
		return r, fmt.Errorf("GPU %d: reading the memory clock: %w", d.info.Index, ret)
	}
	mw, ret := d.h.GetPowerUsage()
	if ret != nvml.SUCCESS {
		return r, fmt.Errorf("GPU %d: reading the power draw: %w", d.info.Index, ret)
	}
	temp, ret := d.h.GetTemperature(nvml.TEMPERATURE_GPU)
	if ret != nvml.SUCCESS {
		return r, fmt.Errorf("GPU %d: reading the temperature: %w", d.info.Index, ret)
	}
	return smart.Readings{SMClockMHz: int(sm), MemClockMHz: int(mem), PowerW: float64(mw) / 1000, TempC: int(temp)}, nil
}
