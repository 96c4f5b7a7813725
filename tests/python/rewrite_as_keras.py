"""Rewrites a Backprop Studio weights file the way Keras itself would write it, with h5py alone.

Keras names layers itself ("dense", "dense_1", ...) and stores names as fixed-length byte strings;
it writes none of Backprop Studio's attributes (no model card, no project). Layers without weights
are left out, as a Sequential model without an InputLayer lists them. With --wrong-shape the last
layer's kernel loses a row, so the reader must refuse it.

usage: rewrite_as_keras.py SOURCE.h5 DESTINATION.h5 [--wrong-shape]
"""
import sys

import h5py
import numpy as np

source_path, destination_path = sys.argv[1], sys.argv[2]
wrong_shape = "--wrong-shape" in sys.argv[3:]

with h5py.File(source_path, "r") as source, h5py.File(destination_path, "w") as destination:
    weighted = []
    for name in source.attrs["layer_names"]:
        name = name.decode() if isinstance(name, bytes) else name
        weight_names = [w.decode() if isinstance(w, bytes) else w for w in source[name].attrs["weight_names"]]
        if weight_names:
            weighted.append((name, weight_names))
    keras_names = ["dense" if i == 0 else "dense_%d" % i for i in range(len(weighted))]
    destination.attrs["layer_names"] = np.array([n.encode() for n in keras_names])
    destination.attrs["backend"] = b"tensorflow"
    destination.attrs["keras_version"] = b"2.12.0"
    for index, ((name, weight_names), keras_name) in enumerate(zip(weighted, keras_names)):
        group = destination.create_group(keras_name)
        roles = [w.split("/")[-1] for w in weight_names]
        group.attrs["weight_names"] = np.array([("%s/%s" % (keras_name, role)).encode() for role in roles])
        for weight_name, role in zip(weight_names, roles):
            values = np.array(source[name][weight_name], dtype=np.float32)
            if wrong_shape and index == len(weighted) - 1 and role == "kernel:0":
                values = values[:-1]
            group.create_dataset("%s/%s" % (keras_name, role), data=values)
