#pragma once
// A trained network as an ONNX model, the format every runtime reads (ONNX Runtime, OpenCV's DNN
// module, the browser runtimes) and Netron draws. The model is written with Debian's ONNX schema
// and protobuf (libonnx-dev), opset 13, IR version 8 (ONNX 1.12):
//   input  "image"          float32 N x C x H x W (ONNX's channels-first convention; N is the
//                           symbolic dimension "batch"). Pixels scaled to [0, 1], then normalised
//                           per channel as the metadata says: (x - mean) / stddev.
//   output "probabilities"  float32 N x classes, the softmax of the last layer for a project
//                           trained with softmax cross-entropy (what `backprop predict` prints);
//                           "outputs", the last layer itself, for one trained with squared error.
// Every project layer is a node under the layer's name (the Input layer an Identity); where a
// layer needs more than one ONNX node, helpers carry "<layer>/<role>" (the Flatten before a Dense
// on a feature map, "gap/flatten" after GlobalAveragePool, "sum/1" for an Add of three inputs).
// The engine flattens channels-first, as ONNX's Flatten does, so the weights go in as the engine
// holds them: Conv (out, in, kh, kw), Dense as Gemm with transB (units, inputs). TensorFlow's 'same'
// padding becomes Conv's own pads, split with the larger half after.
// metadata_props: "classes" (JSON list), "normalization_mean" and "normalization_stddev" (JSON
// lists, empty: no normalisation), "input_height", "input_width", "input_channels",
// "pixel_scale" ("1/255"), "input_layout" ("NCHW"), "project".
// This header includes no ONNX or protobuf header: they stay inside onnx_export.cpp.
#include <string>

#include "engine/runs/saved_weights.h"

namespace bps::session {

// The serialized ONNX ModelProto of the network and weights of `weights`. Throws
// io::WeightsFileError when the file holds no project or model card (a Keras file written by
// another program) or its arrays do not fit the network, model::ModelError when the network
// cannot work on the card's images.
std::string onnx_model(const SavedWeights& weights);

}  // namespace bps::session
