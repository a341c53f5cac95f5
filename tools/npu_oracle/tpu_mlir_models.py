"""The small ONNX models whose local-memory plans tpu-mlir is asked for (tpu_mlir_plans.py),
built with onnx.helper: nothing is downloaded. Fixed seeds, so the same weights every run.

    conv_stem   7x7/2 convolution on 3 channels, ReLU, 3x3/2 max pool (a ResNet stem)
    resblocks   two residual blocks of 3x3 convolutions on 64 channels
    matmul      two linear layers: (1, 256, 256) x (256, 512) + bias, ReLU, x (512, 256) + bias
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


def _weight(rng: np.random.Generator, name: str, shape: tuple) -> onnx.TensorProto:
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
    data = rng.standard_normal(shape).astype(np.float32) / np.sqrt(max(fan_in, 1))
    return numpy_helper.from_array(data, name)


def _conv(rng, nodes, inits, name, x, cin, cout, k, stride, relu=True):
    inits += [_weight(rng, f"{name}_w", (cout, cin, k, k)), _weight(rng, f"{name}_b", (cout,))]
    out = f"{name}_out"
    nodes.append(helper.make_node("Conv", [x, f"{name}_w", f"{name}_b"], [out], name=name,
                                  kernel_shape=[k, k], strides=[stride, stride],
                                  pads=[k // 2] * 4))
    if not relu:
        return out
    nodes.append(helper.make_node("Relu", [out], [f"{name}_relu"], name=f"{name}_relu"))
    return f"{name}_relu"


def _model(name, nodes, inits, input_shape, output, output_shape):
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, input_shape)],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def conv_stem():
    rng = np.random.default_rng(1)
    nodes, inits = [], []
    x = _conv(rng, nodes, inits, "stem", "input", 3, 64, 7, 2)
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], name="pool", kernel_shape=[3, 3],
                                  strides=[2, 2], pads=[1, 1, 1, 1]))
    return _model("conv_stem", nodes, inits, [1, 3, 224, 224], "pool", [1, 64, 56, 56])


def resblocks():
    rng = np.random.default_rng(2)
    nodes, inits = [], []
    x = "input"
    for block in range(2):
        a = _conv(rng, nodes, inits, f"b{block}a", x, 64, 64, 3, 1)
        b = _conv(rng, nodes, inits, f"b{block}b", a, 64, 64, 3, 1, relu=False)
        nodes.append(helper.make_node("Add", [b, x], [f"b{block}_sum"], name=f"b{block}_add"))
        nodes.append(helper.make_node("Relu", [f"b{block}_sum"], [f"b{block}_out"],
                                      name=f"b{block}_out"))
        x = f"b{block}_out"
    return _model("resblocks", nodes, inits, [1, 64, 56, 56], x, [1, 64, 56, 56])


def matmul():
    # Two linear layers around a ReLU: one MatMul alone stays in global memory (no layer group).
    rng = np.random.default_rng(3)
    inits = [_weight(rng, "fc1_w", (256, 512)), _weight(rng, "fc1_b", (512,)),
             _weight(rng, "fc2_w", (512, 256)), _weight(rng, "fc2_b", (256,))]
    nodes = [helper.make_node("MatMul", ["input", "fc1_w"], ["fc1_mm"], name="fc1_mm"),
             helper.make_node("Add", ["fc1_mm", "fc1_b"], ["fc1_add"], name="fc1_add"),
             helper.make_node("Relu", ["fc1_add"], ["fc1_out"], name="fc1_out"),
             helper.make_node("MatMul", ["fc1_out", "fc2_w"], ["fc2_mm"], name="fc2_mm"),
             helper.make_node("Add", ["fc2_mm", "fc2_b"], ["fc2_out"], name="fc2_out")]
    return _model("matmul", nodes, inits, [1, 256, 256], "fc2_out", [1, 256, 256])


MODELS = {"conv_stem": conv_stem, "resblocks": resblocks, "matmul": matmul}
