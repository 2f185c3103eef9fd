"""Running an ONNX graph on the CPU with ONNX Runtime (the optional `aclsim[models]` extra)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

INSTALL_HINT = "install the models extra: pip install 'aclsim[models]' (onnx and onnxruntime)"


class MissingDependency(ImportError):
    """onnx / onnxruntime is not installed; the message says how to get it."""


def require(module: str) -> Any:
    """Import `onnx` or `onnxruntime`, or raise MissingDependency with the install hint."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependency(f"aclsim needs the '{module}' package for models and operators: {INSTALL_HINT}")


class Session:
    """An ONNX Runtime CPU session over model bytes; `run` returns the outputs in graph order."""

    def __init__(self, onnx_bytes: bytes) -> None:
        ort = require("onnxruntime")
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        self._sess = ort.InferenceSession(onnx_bytes, sess_options=opts, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in self._sess.get_inputs()]
        self.output_names = [o.name for o in self._sess.get_outputs()]

    def run(self, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        return self._sess.run(self.output_names, feeds)
