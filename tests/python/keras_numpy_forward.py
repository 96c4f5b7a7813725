"""The independent check of Backprop Studio's weights files: h5py and numpy only, no Backprop Studio code.

It rebuilds by hand, following Keras's conventions (channels_last, kernels (kh, kw, in, out) and
(inputs, units), Flatten in height, width, channel order), the forward pass of the shipped `mlp` and
`cnn` networks (tutorials/projects/mlp.json and cnn.json), reads their weights from
<layer>/<layer>/kernel:0 and the normalisation from the model card, and prints one JSON line per image
with every class's probability, as `backprop predict --json` does.

usage: keras_numpy_forward.py mlp|cnn WEIGHTS.h5 IMAGE.png...
"""
import json
import sys

import h5py
import numpy as np
from PIL import Image


def weight(file, layer, name):
    return np.asarray(file[layer][layer][name + ":0"], dtype=np.float64)


def dense(file, layer, x):
    return x @ weight(file, layer, "kernel") + weight(file, layer, "bias")


def conv2d_valid(file, layer, x):
    kernel, bias = weight(file, layer, "kernel"), weight(file, layer, "bias")
    kh, kw = kernel.shape[:2]
    n, h, w, _ = x.shape
    out = np.zeros((n, h - kh + 1, w - kw + 1, kernel.shape[3]))
    for i in range(kh):
        for j in range(kw):
            out += x[:, i:i + h - kh + 1, j:j + w - kw + 1, :] @ kernel[i, j]
    return out + bias


def max_pool_2x2(x):
    n, h, w, c = x.shape
    h2, w2 = h // 2, w // 2
    return x[:, :h2 * 2, :w2 * 2, :].reshape(n, h2, 2, w2, 2, c).max(axis=(2, 4))


def relu(x):
    return np.maximum(x, 0)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main():
    net, weights_path, images = sys.argv[1], sys.argv[2], sys.argv[3:]
    with h5py.File(weights_path, "r") as file:
        card = json.loads(file.attrs["model_card"])
        mean = np.array(card["normalization"]["mean"], dtype=np.float64)
        stddev = np.array(card["normalization"]["stddev"], dtype=np.float64)
        x = np.stack([np.asarray(Image.open(p).convert("L"), dtype=np.float64)[:, :, None] for p in images]) / 255.0
        if mean.size:
            x = (x - mean) / stddev
        if net == "mlp":
            x = x.reshape(len(x), -1)
            x = relu(dense(file, "fc1", x))
            x = dense(file, "fc2", x)
        elif net == "cnn":
            x = max_pool_2x2(relu(conv2d_valid(file, "conv1", x)))
            x = max_pool_2x2(relu(conv2d_valid(file, "conv2", x)))
            x = x.reshape(len(x), -1)  # channels-last flattening: height, width, channel
            x = relu(dense(file, "fc1", x))
            x = dense(file, "fc2", x)
        else:
            sys.exit("unknown network " + net)
    for path, row in zip(images, softmax(x)):
        print(json.dumps({"file": path, "probabilities": [float(p) for p in row]}))


if __name__ == "__main__":
    main()
