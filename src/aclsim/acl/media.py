"""`acl.media`: the DVPP memory calls (DVPP buffers are ordinary device memory here).

DVPP picture and video processing are not emulated: those calls return ACL_ERROR_API_NOT_SUPPORT and say so.
"""

from __future__ import annotations

from ..runtime import get_runtime
from ._args import pyacl
from ._missing import R, not_emulated


@pyacl("acl.media.dvpp_malloc", "k", fail=(0,))
def dvpp_malloc(size: int) -> int:
    return get_runtime().malloc(size, 0, "dvpp_malloc").start


@pyacl("acl.media.dvpp_free", "k")
def dvpp_free(dev_ptr: int) -> None:
    get_runtime().free(dev_ptr, "acl.media.dvpp_free")


_VIDEO = "video decode/encode (VDEC/VENC) needs the NPU's codec hardware; decode frames on the host instead"
_PICTURE = "DVPP picture processing (JPEG codec, VPC) is not emulated yet; decode and resize with Pillow on the host"
# Result shapes from the pyACL media reference: create_*desc/config return a handle, get_*_desc_* a value,
# predict/get_image_info (value..., ret), everything else ret.
__getattr__ = not_emulated("acl.media", [
    (r"(vdec|venc)_create_\w*(desc|config)", (0,), _VIDEO),
    (r"(vdec|venc)_get_\w+", (0,), _VIDEO),
    (r"(vdec|venc)_\w+", (R,), _VIDEO),
    (r"dvpp_create_\w*(desc|config)", (0,), _PICTURE),
    (r"dvpp_get_\w+_desc_\w+|dvpp_get_\w+_config_\w+", (0,), _PICTURE),
    (r"dvpp_jpeg_get_image_info", (0, 0, 0, R), _PICTURE),
    (r"dvpp_jpeg_get_image_info_v2", (0, 0, 0, 0, R), _PICTURE),
    (r"dvpp_\w*predict\w*", (0, R), _PICTURE),
    (r"dvpp_\w+", (R,), _PICTURE),
])
