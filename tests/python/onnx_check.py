"""The structure of a Backprop Studio ONNX model, checked with the onnx package's own tools.

usage: onnx_check.py MODEL.onnx CLASSES LAYER [LAYER...]

Passes onnx.checker.check_model with full checks, strict shape inference gives the output
[batch, CLASSES], every project LAYER names a node, the opset is 13 or later and the metadata holds
the classes and the normalisation. Prints "ok" and a summary, or fails with the first problem.
"""
import json
import sys

import onnx
import onnx.checker
import onnx.shape_inference


def dims(value):
    return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]


def main():
    path, classes, layers = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    output = inferred.graph.output[0]
    assert dims(output) == ["batch", classes], "output %s is %s" % (output.name, dims(output))
    # What inference finds for the output from the graph itself, not from the declared output.
    known = {v.name: v for v in inferred.graph.value_info}
    last = [n for n in inferred.graph.node if output.name in n.output][0]
    assert dims(known[last.input[0]]) == ["batch", classes], dims(known[last.input[0]])
    nodes = {node.name for node in model.graph.node}
    missing = [layer for layer in layers if layer not in nodes]
    assert not missing, "no node for the layers %s" % missing
    version = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")][0]
    assert version >= 13, "opset %d" % version
    meta = {entry.key: entry.value for entry in model.metadata_props}
    assert len(json.loads(meta["classes"])) == classes, meta["classes"]
    for key in ("normalization_mean", "normalization_stddev"):
        assert isinstance(json.loads(meta[key]), list), meta[key]
    assert model.producer_name == "Backprop Studio", model.producer_name
    print("ok: opset %d, %d nodes, input %s %s, output %s %s" %
          (version, len(model.graph.node), model.graph.input[0].name, dims(model.graph.input[0]), output.name,
           dims(output)))


if __name__ == "__main__":
    main()
