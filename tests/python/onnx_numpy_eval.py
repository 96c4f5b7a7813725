"""An independent evaluator of Backprop Studio's ONNX models: numpy, and the onnx package only to
parse the protobuf (no onnx.reference, no onnxruntime, no Backprop Studio code).

It implements, from the ONNX operator specifications, every operator the export emits, runs the
graph node by node in float64 on the images given, read with PIL and scaled and normalised as the
model's metadata says, and prints one JSON line per image with every class's probability, as
`backprop predict --json` does.

usage: onnx_numpy_eval.py MODEL.onnx IMAGE.png...
"""
import json
import sys

import numpy as np
import onnx
from PIL import Image


def tensor(proto):
    """An initializer as a numpy array, from whichever field holds its values."""
    dims = tuple(proto.dims)
    if proto.data_type == onnx.TensorProto.FLOAT:
        values = np.frombuffer(proto.raw_data, dtype="<f4") if proto.raw_data else np.array(proto.float_data,
                                                                                           dtype=np.float32)
        return values.astype(np.float64).reshape(dims)
    if proto.data_type == onnx.TensorProto.INT64:
        values = np.frombuffer(proto.raw_data, dtype="<i8") if proto.raw_data else np.array(proto.int64_data,
                                                                                           dtype=np.int64)
        return values.reshape(dims)
    raise SystemExit("initializer %s has data type %d, which this evaluator does not read" % (proto.name,
                                                                                            proto.data_type))


def attributes(node):
    found = {}
    for a in node.attribute:
        if a.type == onnx.AttributeProto.INT:
            found[a.name] = a.i
        elif a.type == onnx.AttributeProto.INTS:
            found[a.name] = list(a.ints)
        elif a.type == onnx.AttributeProto.FLOAT:
            found[a.name] = a.f
        elif a.type == onnx.AttributeProto.STRING:
            found[a.name] = a.s.decode()
        else:
            raise SystemExit("node %s: attribute %s of a type this evaluator does not read" % (node.name, a.name))
    return found


def conv(x, w, b, at):
    """Conv, group 1, dilation 1: explicit pads (begin H, begin W, end H, end W) and strides."""
    assert at.get("group", 1) == 1 and set(at.get("dilations", [1, 1])) == {1}
    assert at.get("auto_pad", "NOTSET") == "NOTSET"
    top, left, bottom, right = at.get("pads", [0, 0, 0, 0])
    sh, sw = at.get("strides", [1, 1])
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, _, h, wd = x.shape
    co, ci, kh, kw = w.shape
    oh, ow = (h - kh) // sh + 1, (wd - kw) // sw + 1
    out = np.zeros((n, co, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]  # n, ci, oh, ow
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return out + (b.reshape(1, co, 1, 1) if b is not None else 0)


def pool(x, at, reduce):
    assert at.get("pads", [0, 0, 0, 0]) == [0, 0, 0, 0] and at.get("ceil_mode", 0) == 0
    kh, kw = at["kernel_shape"]
    sh, sw = at.get("strides", [1, 1])
    n, c, h, w = x.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    windows = np.stack([x[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]
                        for i in range(kh) for j in range(kw)])
    return reduce(windows, axis=0)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def run_node(node, inputs):
    at = attributes(node)
    op = node.op_type
    x = inputs[0]
    if op in ("Identity", "Dropout"):  # Dropout without training_mode passes its input through
        return x
    if op == "Gemm":
        a = x.T if at.get("transA", 0) else x
        b = inputs[1].T if at.get("transB", 0) else inputs[1]
        c = inputs[2] if len(inputs) > 2 else 0
        return at.get("alpha", 1.0) * (a @ b) + at.get("beta", 1.0) * c
    if op == "MatMul":
        return x @ inputs[1]
    if op == "Conv":
        return conv(x, inputs[1], inputs[2] if len(inputs) > 2 else None, at)
    if op == "MaxPool":
        return pool(x, at, np.max)
    if op == "AveragePool":
        return pool(x, at, np.mean)
    if op == "GlobalAveragePool":
        return x.mean(axis=(2, 3), keepdims=True)
    if op == "Flatten":
        axis = at.get("axis", 1)
        return x.reshape(int(np.prod(x.shape[:axis])), -1)
    if op == "Reshape":
        return x.reshape([x.shape[i] if d == 0 else d for i, d in enumerate(inputs[1])])
    if op == "Unsqueeze":
        for axis in sorted(int(a) for a in inputs[1]):
            x = np.expand_dims(x, axis)
        return x
    if op == "Transpose":
        return x.transpose(at["perm"])
    if op == "Pad":
        pads = [int(p) for p in inputs[1]]
        rank = x.ndim
        return np.pad(x, [(pads[i], pads[i + rank]) for i in range(rank)])
    if op == "Relu":
        return np.maximum(x, 0)
    if op == "LeakyRelu":
        return np.where(x >= 0, x, at.get("alpha", 0.01) * x)
    if op == "Tanh":
        return np.tanh(x)
    if op == "Sigmoid":
        return 1 / (1 + np.exp(-x))
    if op == "Softmax":
        return softmax(x, at.get("axis", -1))
    if op == "BatchNormalization":
        scale, bias, mean, var = inputs[1:5]
        shape = (1, -1) + (1,) * (x.ndim - 2)
        eps = at.get("epsilon", 1e-5)
        return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(shape) + bias.reshape(shape)
    if op == "Add":
        return x + inputs[1]
    if op == "Concat":
        return np.concatenate(inputs, axis=at["axis"])
    raise SystemExit("node %s: operator %s is not one this evaluator implements" % (node.name, op))


def metadata(model):
    return {entry.key: entry.value for entry in model.metadata_props}


def read_images(meta, paths):
    height, width, channels = (int(meta[k]) for k in ("input_height", "input_width", "input_channels"))
    assert meta["pixel_scale"] == "1/255" and meta["input_layout"] == "NCHW"
    mean = np.array(json.loads(meta["normalization_mean"]), dtype=np.float64)
    stddev = np.array(json.loads(meta["normalization_stddev"]), dtype=np.float64)
    images = []
    for path in paths:
        pixels = np.asarray(Image.open(path).convert("L" if channels == 1 else "RGB"), dtype=np.float64) / 255.0
        pixels = pixels.reshape(height, width, channels)
        if mean.size:
            pixels = (pixels - mean) / stddev
        images.append(pixels.transpose(2, 0, 1))  # channels first
    return np.stack(images)


def evaluate(model, batch):
    graph = model.graph
    values = {init.name: tensor(init) for init in graph.initializer}
    values[graph.input[0].name] = batch
    for node in graph.node:  # ONNX lists nodes in topological order
        values[node.output[0]] = run_node(node, [values[name] for name in node.input if name])
    return values[graph.output[0].name]


def main():
    model = onnx.load(sys.argv[1])
    paths = sys.argv[2:]
    probabilities = evaluate(model, read_images(metadata(model), paths))
    for path, row in zip(paths, probabilities):
        print(json.dumps({"file": path, "probabilities": [float(p) for p in row]}))


if __name__ == "__main__":
    main()
