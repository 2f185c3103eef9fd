"""Write a small random-weight image classifier as ONNX (input data[1,3,32,32] float32, output prob[1,10]),
and optionally a test picture for it.

    python examples/models/make_model.py tiny.onnx --picture picture.jpg
    aclsim atc --model=tiny.onnx --framework=5 --output=tiny --soc_version=Ascend310P3
"""

from __future__ import annotations

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def classifier(size: int = 32, classes: int = 10, seed: int = 0) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    w = {"conv_w": rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.05,
         "conv_b": rng.standard_normal(8).astype(np.float32) * 0.1,
         "fc_w": rng.standard_normal((classes, 8)).astype(np.float32),
         "fc_b": rng.standard_normal(classes).astype(np.float32)}
    nodes = [
        helper.make_node("Conv", ["data", "conv_w", "conv_b"], ["conv"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["conv"], ["relu"]),
        helper.make_node("GlobalAveragePool", ["relu"], ["pool"]),
        helper.make_node("Flatten", ["pool"], ["flat"]),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["prob"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_classifier", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, classes])],
        [numpy_helper.from_array(v, k) for k, v in w.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


def picture(path: str, seed: int = 0) -> None:
    """A random 80x60 RGB JPEG (needs Pillow: pip install 'aclsim[images]')."""
    from PIL import Image

    Image.fromarray(np.random.default_rng(seed).integers(0, 256, (60, 80, 3), dtype=np.uint8)).save(path)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="Write a small random-weight ONNX image classifier "
                                 "(input data[1,3,32,32] float32, output prob[1,10]) to convert with aclsim atc.")
    ap.add_argument("output", nargs="?", default="tiny.onnx", help="ONNX file to write (default tiny.onnx)")
    ap.add_argument("--picture", metavar="JPG", help="also write a random 80x60 JPEG picture to classify")
    args = ap.parse_args()
    onnx.save(classifier(), args.output)
    if args.picture:
        picture(args.picture)
