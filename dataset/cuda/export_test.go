package cuda

import (
	_ "embed"
	"path/filepath"
)

//go:embed cxx/emulation_runtime.h
var emulationRuntime string

// Emulation compiles with g++ under smart's CUDA-emulation prelude and an emulated runtime: the
// harness runs on the CPU and loads modules as shared objects. Times it reports are CPU times of
// the emulation, meaningless as GPU figures; it exists to test the runner (the Verifier builds
// its own emulated runs, verify.go).
func Emulation(gxx, buildDir string) Compiler {
	base := []string{"-std=c++20", "-O1", "-pthread", "-x", "c++",
		"-include", filepath.Join(buildDir, "emulation.h"), "-include", filepath.Join(buildDir, "emulation_runtime.h")}
	return Compiler{Path: gxx, Args: append(append([]string(nil), base...), "-shared", "-fPIC"), HarnessArgs: base,
		HarnessLibs: []string{"-ldl"}, Ext: ".so",
		Headers: map[string]string{"emulation.h": emulationPrelude, "emulation_runtime.h": emulationRuntime}}
}

// noFault plants no fault: the zero value of fault.
const noFault fault = 0
