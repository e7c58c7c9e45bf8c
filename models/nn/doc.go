// Package nn trains and runs StencilMART's neural networks with gorgonia: the ConvNet and FcNet
// classifiers that pick a stencil's best optimization combination, and the MLP and ConvMLP
// regressors that predict its time per step from the stencil, the setting and the GPU
// (StencilMART sections IV-D and IV-E).
//
// Every network is one Arch: an optional convolutional branch over the stencil's binary tensor
// (3x3 convolutions with ReLU, then an optional 3x3 max pooling of stride 2), an optional fully connected
// branch over the feature vector, their outputs joined and fed to fully connected hidden layers
// with ReLU, and an output layer: a softmax over the classes or one linear unit (the natural log
// of milliseconds per step). The four kinds differ only in which branches they have and which
// columns of a row they read:
//
//	convnet  tensor -> conv -> [GPU features joined] -> FC -> softmax
//	fcnet    Table II features (and GPU features) -> FC -> softmax
//	mlp      stencil features, OC, setting, GPU -> FC (7 hidden layers) -> ln ms
//	convmlp  tensor -> conv, OC/setting/GPU -> FC, joined -> FC -> ln ms
//
// gorgonia has no 3-D convolution, so a 3-D stencil's (2R+1)^3 tensor is 2R+1 channels (its z
// planes) of a (2R+1)x(2R+1) image; a 2-D stencil's is one channel.
//
// Training uses gorgonia's Adam solver (StencilMART's defaults: learning rate 1e-4 and batches of
// 50 for the classifiers, 5e-4 and 256 for the regressors) on the cross-entropy or on the squared
// error of the standardised log time. gorgonia fixes a graph's batch size, so a Net builds one
// graph for training and separate inference graphs of batch 1, 16 and 128 that read the same
// weight slices (a single row runs through the batch-1 graph, with no padding).
//
// Weights are initialised from the seed (He initialisation) and batches are shuffled from it.
// gorgonia's own initialisers and dropout draw from a package-level generator, so this package
// uses neither; the operations it uses split work across goroutines by output block or row, never
// by a sum, so training is deterministic for a given seed and data whatever GOMAXPROCS is.
//
// Register adds the four kinds to a models.Kinds; models.Save and models.Load store a Net as its
// architecture, the columns it reads, its target scaling and its weights (float64 slices with
// shapes).
package nn
