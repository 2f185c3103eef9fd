"""Classify a picture with an offline model, in the style of the official pyACL classification samples.

    aclsim run examples/models/classify.py MODEL.om PICTURE.jpg [--async] [--check-onnx MODEL.onnx]

init -> device/context/stream -> load the model -> one device buffer per input and output -> datasets ->
copy the preprocessed picture in -> execute (or execute_async + synchronize_stream) -> copy out -> top 5.
"""

from __future__ import annotations

import argparse

import acl
import numpy as np
from PIL import Image

ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 0, 1, 2
ACL_ERROR, ACL_INFO = 3, 1


def check(what: str, ret: int) -> None:
    if ret != 0:
        acl.app_log(ACL_ERROR, f"{what} failed: {ret}")
        raise SystemExit(f"{what} failed ret={ret}: {acl.get_recent_err_msg()}")


def preprocess(path: str, h: int, w: int) -> np.ndarray:
    """Resize, centre-crop, RGB -> BGR, subtract the ImageNet means, HWC -> NCHW float32."""
    with Image.open(path) as im:
        img = np.asarray(im.convert("RGB").resize((w * 8 // 7, h * 8 // 7)), dtype=np.float32)
    top, left = (img.shape[0] - h) // 2, (img.shape[1] - w) // 2
    img = img[top:top + h, left:left + w, ::-1] - np.array([104, 117, 123], np.float32)
    return np.ascontiguousarray(img.transpose(2, 0, 1)[None])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("picture")
    p.add_argument("--async", dest="use_async", action="store_true")
    p.add_argument("--check-onnx", help="also run this ONNX model with onnxruntime and compare")
    args = p.parse_args()

    check("acl.init", acl.init())
    check("acl.rt.set_device", acl.rt.set_device(0))
    context, ret = acl.rt.create_context(0)
    check("acl.rt.create_context", ret)
    stream, ret = acl.rt.create_stream()
    check("acl.rt.create_stream", ret)

    model_id, ret = acl.mdl.load_from_file(args.model)
    check("acl.mdl.load_from_file", ret)
    desc = acl.mdl.create_desc()
    check("acl.mdl.get_desc", acl.mdl.get_desc(desc, model_id))
    acl.app_log(ACL_INFO, f"model {model_id}: {acl.mdl.get_num_inputs(desc)} input(s)")

    datasets, buffers = [], []
    for count, size_of in ((acl.mdl.get_num_inputs(desc), acl.mdl.get_input_size_by_index),
                           (acl.mdl.get_num_outputs(desc), acl.mdl.get_output_size_by_index)):
        dataset = acl.mdl.create_dataset()
        for i in range(count):
            size = size_of(desc, i)
            dev, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
            check("acl.rt.malloc", ret)
            buffers.append((dev, size))
            _, ret = acl.mdl.add_dataset_buffer(dataset, acl.create_data_buffer(dev, size))
            check("acl.mdl.add_dataset_buffer", ret)
        datasets.append(dataset)
    (in_dev, in_size), (out_dev, out_size) = buffers

    dims, ret = acl.mdl.get_input_dims(desc, 0)
    check("acl.mdl.get_input_dims", ret)
    _, _, h, w = dims["dims"]
    x = preprocess(args.picture, h, w)
    data = x.tobytes()
    check("acl.rt.memcpy", acl.rt.memcpy(in_dev, in_size, acl.util.bytes_to_ptr(data), len(data),
                                         ACL_MEMCPY_HOST_TO_DEVICE))
    if args.use_async:
        check("acl.mdl.execute_async", acl.mdl.execute_async(model_id, datasets[0], datasets[1], stream))
        check("acl.rt.synchronize_stream", acl.rt.synchronize_stream(stream))
    else:
        check("acl.mdl.execute", acl.mdl.execute(model_id, datasets[0], datasets[1]))

    out_dims, ret = acl.mdl.get_cur_output_dims(desc, 0)
    check("acl.mdl.get_cur_output_dims", ret)
    host = bytes(out_size)
    check("acl.rt.memcpy", acl.rt.memcpy(acl.util.bytes_to_ptr(host), out_size, out_dev, out_size,
                                         ACL_MEMCPY_DEVICE_TO_HOST))
    prob = np.frombuffer(host, np.float32).reshape(out_dims["dims"])
    print("======== top5 inference results: =============")
    for k in prob[0].argsort()[::-1][:5]:
        print(f"[{k}]: {prob[0, k]:f}")
    if args.check_onnx:
        import onnxruntime as ort

        want = ort.InferenceSession(args.check_onnx, providers=["CPUExecutionProvider"]).run(None, {"data": x})[0]
        print("match onnxruntime" if np.allclose(prob, want, rtol=1e-5, atol=1e-6) else "MISMATCH onnxruntime")

    for dataset in datasets:
        for i in range(acl.mdl.get_dataset_num_buffers(dataset)):
            check("acl.destroy_data_buffer", acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(dataset, i)))
        check("acl.mdl.destroy_dataset", acl.mdl.destroy_dataset(dataset))
    for dev, _ in buffers:
        check("acl.rt.free", acl.rt.free(dev))
    check("acl.mdl.unload", acl.mdl.unload(model_id))
    check("acl.mdl.destroy_desc", acl.mdl.destroy_desc(desc))
    check("acl.rt.destroy_stream", acl.rt.destroy_stream(stream))
    check("acl.rt.destroy_context", acl.rt.destroy_context(context))
    check("acl.rt.reset_device", acl.rt.reset_device(0))
    check("acl.finalize", acl.finalize())


if __name__ == "__main__":
    main()
