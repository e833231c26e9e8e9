"""``tf.image``: the basics the tutorials use (resize, dtype conversion, flips, rotations, crops,
brightness, grayscale, standardization). The ops are in ``engine/ops/image_ops.py``."""
from .ops.image_ops import (  # noqa: F401
    ResizeMethod, adjust_brightness, adjust_contrast, central_crop, convert_image_dtype, flip_left_right, flip_up_down,
    per_image_standardization, resize, rgb_to_grayscale, rot90,
)

__all__ = ["ResizeMethod", "adjust_brightness", "adjust_contrast", "central_crop", "convert_image_dtype", "flip_left_right",
           "flip_up_down", "per_image_standardization", "resize", "rgb_to_grayscale", "rot90"]
