// Package models holds what every learned model of smart shares: the two prediction interfaces,
// the registry of model kinds, and the one model file format all kinds are saved in.
//
// # The two interfaces
//
// A Classifier picks the best optimization combination (OC) class for a stencil: its input row
// is the stencil's features (StencilMART Table II, optionally the binary tensor) and, when it was
// trained across GPUs, the GPU's features; it returns one probability per class. A Regressor
// predicts a stencil's time per step from the stencil's features, the OC, the encoded setting
// (log2 of numeric parameters) and the GPU's features. Both predict on plain []float64 rows, one
// at a time or in batches; rows follow the feature schema (Header.Features) in order.
//
// Implementations (gbdt, forest, golearn, nn) see rows after normalisation (Header.Norm, when
// their Kind asks for it) and, for regression, learn and return the training target, the natural
// logarithm of milliseconds per step. Load wraps them so that callers give raw feature rows and
// get probabilities, or milliseconds per step.
//
// # Kinds
//
// A Kind is one model family (gbdt, forest, cart, knn, convnet, ...): a function that trains it
// on a Data matrix and one that decodes its saved payload. Kinds is a plain map built by the
// caller, so there is no global registry: each kind package exports Register(models.Kinds) and
// package models/kinds assembles them all. This keeps the imports pointing one way: kind packages
// import models, models imports none of them.
//
// To add a kind (for example in models/nn):
//
//	func Register(k models.Kinds) {
//		k["convnet"] = models.Kind{Tasks: []models.Task{models.Select}, Normalize: true,
//			Train: trainConvNet, Decode: decodeConvNet}
//	}
//
// where trainConvNet returns a value that implements Fitted and Classifier (or Regressor), and
// decodeConvNet(h, payload) reads back what its MarshalBinary wrote and returns a Classifier or
// a Regressor. A kind that reads the stencil's binary tensor sets Tensor, and the training
// pipeline (models/train) adds the tensor's columns (features.TensorNames) to its rows. Then add
// one line calling Register to models/kinds.
//
// Hyper-parameters reach a kind as "name=value" strings (smart train --param); ApplyParams parses
// them into a kind's own fields, so every kind rejects unknown names the same way.
//
// # The model file
//
// A model file is a small binary container around a JSON header:
//
//	"smart-model\n"           12 bytes, the magic
//	format version            uint32, little endian (this package writes and reads FormatVersion)
//	header length, header     uint32, then that many bytes of JSON (Header)
//	payload length, payload   uint64, then the kind's payload (gbdt: LightGBM v3 text model)
//	checksum                  uint32, CRC-32 (IEEE) of every byte before it
//
// The header holds the kind, the task and target, the hyper-parameters (as given and as used), the
// feature schema (names in order) and how its rows are built (Inputs: stencil features, tensor,
// setting, GPU features, analytic time), the normalisation constants, the class mapping (each class
// and the OCs merged into it), the data the model was trained on (paths, sources, GPUs, devices,
// row counts) and its cross-validation metrics. Save writes a temporary file and renames it, so a
// reader never sees a half-written model. Load checks the magic, the version, the lengths and the
// checksum before it decodes anything, so a truncated, corrupt, foreign or newer file gives an
// error naming the file and the problem; a payload decoder that panics is recovered into an error
// as well.
package models
