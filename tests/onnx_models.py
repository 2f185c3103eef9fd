"""Small random-weight ONNX models for the model tests (built with the onnx package; nothing downloaded)."""

from __future__ import annotations

import numpy as np


def save(model, path) -> str:
    import onnx

    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return str(path)


def mlp(batch: int | str = 1, seed: int = 0):
    """x[batch, 8] -> relu(x @ w1 + b1) @ w2 + b2 -> y[batch, 5]; returns (model, weights)."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w = {"w1": rng.standard_normal((8, 16)).astype(np.float32), "b1": rng.standard_normal(16).astype(np.float32),
         "w2": rng.standard_normal((16, 5)).astype(np.float32), "b2": rng.standard_normal(5).astype(np.float32)}
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h0"]), helper.make_node("Add", ["h0", "b1"], ["h1"]),
             helper.make_node("Relu", ["h1"], ["h2"]), helper.make_node("MatMul", ["h2", "w2"], ["h3"]),
             helper.make_node("Add", ["h3", "b2"], ["y"])]
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 5])],
                          [numpy_helper.from_array(v, k) for k, v in w.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), w


def mlp_reference(x: np.ndarray, w: dict) -> np.ndarray:
    return np.maximum(x @ w["w1"] + w["b1"], 0) @ w["w2"] + w["b2"]


def cnn(batch: int | str = 1, hw: tuple = (16, 16), seed: int = 1, classes: int = 10):
    """data[batch, 3, H, W] -> conv3x3 -> relu -> global pool -> flatten -> gemm -> softmax -> prob[batch, classes]."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w = {"cw": rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.1,
         "cb": rng.standard_normal(4).astype(np.float32),
         "fw": rng.standard_normal((classes, 4)).astype(np.float32), "fb": rng.standard_normal(classes).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["data", "cw", "cb"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]), helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]), helper.make_node("Gemm", ["f", "fw", "fb"], ["l"], transB=1),
             helper.make_node("Softmax", ["l"], ["prob"], axis=1)]
    g = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [batch, 3, *hw])],
                          [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [batch, classes])],
                          [numpy_helper.from_array(v, k) for k, v in w.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), w


def run_onnx(model, feeds: dict) -> list:
    import onnxruntime as ort

    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
