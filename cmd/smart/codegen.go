package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"smart"
	"smart/app"
	"smart/dataset/cuda"
)

// codegenOpts are the flags of the command.
type codegenOpts struct {
	kernel  app.KernelSettings
	outPath string
	asJSON  bool
}

func (o *codegenOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.kernel.OC, "oc", "", "optimization combination, e.g. ST_BM_TB or BASE (required)")
	fs.StringVar(&o.kernel.Setting, "setting", "", "the OC's parameters as k=v,... (required; smart space FILE --oc OC lists them)")
	fs.StringVar(&o.kernel.GPU, "gpu", "", "GPU whose limits the setting must meet, from the catalogue (smart gpus); default sm_80")
	fs.StringVar(&o.kernel.Catalog, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.StringVar(&o.outPath, "o", "", "write the source to this file (atomically) instead of stdout; - is stdout")
	fs.BoolVar(&o.asJSON, "json", false, "print the launch configuration and the source as JSON")
	fs.BoolVar(&o.kernel.Replace, "force", false, "overwrite the -o file even if it is not a source smart generated")
}

func runCodegen(ctx context.Context, e *env, args []string) error {
	var o codegenOpts
	fs, files, err := parse(e, "codegen", args, o.register)
	switch {
	case err != nil:
		return err
	case len(files) != 1:
		return usagef("give one stencil file")
	case o.kernel.OC == "":
		return usagef("give the optimization combination with --oc (BASE for none)")
	}
	// The OC first: the hint for a missing setting names it.
	if _, err := app.ParseOC(o.kernel.OC); err != nil {
		return settingFlag(fs, err, map[string]string{"Out": "-o"})
	}
	if o.kernel.Setting == "" {
		return usagef("give the setting with --setting k=v,... (smart space %s --oc %s --sample 1 prints one)", files[0], o.kernel.OC)
	}
	st, err := loadStencil(e, files[0], smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return err
	}
	if o.outPath != "-" {
		o.kernel.Out = o.outPath
	}
	k, err := app.GenerateKernel(ctx, st, files[0], o.kernel)
	if err != nil {
		return settingFlag(fs, err, map[string]string{"Out": "-o"})
	}
	return o.write(e, k)
}

// write writes the kernel to -o (or stdout) and describes its launches, or prints it as JSON.
func (o *codegenOpts) write(e *env, k *cuda.Kernel) error {
	path := o.kernel.Out // "" for stdout
	if path == "" && !o.asJSON {
		_, err := fmt.Fprint(e.stdout, k.File())
		return err
	}
	return printOut(e, o.asJSON, k.JSON(path), func(w io.Writer) error { return k.WriteSummary(w, path) })
}
