package main

import (
	"errors"
	"fmt"

	"smart"
	"smart/app"
	"smart/catalog"
	"smart/dataset"
	"smart/dataset/gpuinfo"
	"smart/generator"
	"smart/internal/atomicfile"
	"smart/models"
	"smart/models/train"
	"smart/predict"
	"smart/transfer"
	"smart/tuner"
)

// advice is what the command line adds to a library error it prints: the command or flag that
// answers it. Libraries say what is wrong in their own terms; they know no flags. The advice
// follows the whole message, so it reads right wherever in the chain the error sits; cmd is the
// command that failed, for flags only some commands have.
func advice(cmd string, err error) string {
	var (
		notFound *catalog.NotFoundError
		labels   *train.LabelsError
		noModel  *predict.NoModelError
		device   *app.UnknownDeviceError
		fit      *app.DefaultSettingError
		noGPU    *app.NoGPUNamedError
		mixed    *dataset.MixedError
		empty    *app.EmptySpaceError
	)
	switch {
	case errors.As(err, &mixed) && mixed.Always && cmd == "dataset":
		return "; keep them as separate data sets (train and eval read several)"
	case errors.As(err, &mixed) && cmd == "dataset":
		return "; give --allow-mixed if joining them into one data set is meant"
	case errors.Is(err, dataset.ErrTooFewToMerge):
		return " (--classes-from LABELLED), or ask for as many classes as OCs ran with --classes"
	case errors.Is(err, dataset.ErrNoDevice) && cmd == "dataset":
		return "; name it with --device (the name nvidia-smi or rocm-smi prints, or a catalogue name)"
	case errors.Is(err, gpuinfo.ErrNoGPU) && (cmd == "bench" || cmd == "campaign"):
		return "; without one, --backend sim simulates the times with the analytic model"
	case errors.Is(err, gpuinfo.ErrNoGPU) && cmd == "tune":
		return "; without one, --evaluator sim or model:embedded searches a model instead"
	case errors.Is(err, dataset.ErrNoKernel) && (cmd == "dataset" || cmd == "transfer"):
		return "; name it with --kernel NAME, or put the kernel's space.json (benchmark_hub's format) beside the file"
	case errors.Is(err, dataset.ErrNoKernel): // tune and tune-bench name no kernel, but read data sets
		return "; put the kernel's space.json (benchmark_hub's format) beside the file, or import the file with smart dataset import --kernel NAME --device GPU --out DIR FILE and give DIR in its place"
	case errors.Is(err, app.ErrCacheOfStencils) && cmd == "transfer":
		return " with --dataset DIR"
	case errors.As(err, new(*atomicfile.NotOursError)):
		return "; nothing was written: choose another name, or give --force to overwrite it"
	case errors.As(err, &device):
		return "; name it with --gpu or add it with --catalog"
	case errors.As(err, &notFound) && cmd == "transfer":
		return " (add it with --catalog FILE, or give settings measured on it with --shots)"
	case errors.As(err, &notFound) && len(notFound.Similar) > 0:
		return " (smart gpus lists the catalogue; describe a GPU it lacks in a --catalog FILE)"
	case errors.As(err, &notFound):
		return " (add your own with --catalog FILE)"
	case errors.Is(err, models.ErrNotModel):
		return "; give a file written by smart train"
	case errors.As(err, &labels) && labels.Err != nil:
		return fmt.Sprintf(" (run smart dataset label %s)", labels.Dir)
	case errors.As(err, &labels):
		return fmt.Sprintf("; run smart dataset label %s again", labels.Dir)
	case errors.As(err, &noModel):
		return fmt.Sprintf("; train a model on %d-D stencils of order %d (smart bench, smart train)", noModel.Dims, noModel.Order)
	case errors.As(err, &noGPU):
		return "; name it with --gpu"
	case errors.As(err, &empty) && empty.Grid:
		return "" // the error says what grid has room
	case errors.As(err, &empty):
		return "; try another --oc (smart space FILE --gpu GPU counts the settings of each) or another --gpu"
	case errors.As(err, &fit):
		return "; give one that fits with --setting"
	case errors.As(err, new(*generator.ChangedError)):
		return ": give another --out, delete the file, or give --force to overwrite it"
	case errors.Is(err, train.ErrMixedDims) && cmd == "train":
		return "; pass --dims 2 or --dims 3"
	case errors.Is(err, smart.ErrOrderLimit) && (cmd == "show" || cmd == "features"):
		return " with --max-order"
	case errors.Is(err, transfer.ErrNoLevel):
		return "; describe the GPU in a --catalog file, or give settings measured on it with --shots"
	case errors.As(err, new(*app.LocalModelError)):
		return ": go run ./bench/regmodel -local scores such a model"
	case errors.Is(err, tuner.ErrNotClassifier):
		return " (smart train --task select)"
	}
	return ""
}
