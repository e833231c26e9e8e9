"""``tf.image`` basics: resizing (bilinear, nearest), dtype conversion, flips, rotations, crops, brightness,
grayscale and per-image standardization. The namespace is ``engine/image.py``.

The resize ops are registry rows, as TF's kernels are, with TF 2.21's semantics for ``tf.image.resize``
(``half_pixel_centers=True``, ``align_corners=False``):

* ``ResizeBilinear(images, size)``: every output pixel ``(y, x)`` samples the input at
  ``((y + 0.5) * in_h / out_h - 0.5, (x + 0.5) * in_w / out_w - 0.5)``, linearly interpolating between
  the two nearest rows and columns (clamped to the image). The output is float32 whatever the input
  dtype. The engine computes it as ``Wy @ image @ Wx^T`` per batch and channel, with the interpolation
  weights in float32 (TF: per-pixel lerps; equal up to rounding). Its gradient is ``ResizeBilinearGrad``
  (``Wy^T @ g @ Wx``), itself linear in the gradient, so it can be differentiated again.
* ``ResizeNearestNeighbor(images, size)``: output ``(y, x)`` copies input row
  ``min(floor((y + 0.5) * in_h / out_h), in_h - 1)`` and the same for columns; the dtype is kept. Its
  gradient, ``ResizeNearestNeighborGrad``, sums each output gradient into the pixel it copied.

The other functions are compositions of existing ops, exactly as TF writes them
(``image_ops_impl.py``): ``convert_image_dtype`` scales between the dtypes' ranges (integers to floats
divide by the integer max, floats to integers multiply by ``max + 0.5``, integers to integers shift),
``adjust_brightness`` adds ``delta`` in float and converts back saturating, ``rgb_to_grayscale`` weighs
the channels ``[0.2989, 0.587, 0.114]``, ``per_image_standardization`` is
``(x - mean) / max(stddev, 1 / sqrt(num_pixels))`` in float32.
"""
import enum

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.registry import no_registered_gradient, register_op
from ..framework.tensor import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from . import array_ops, bitwise_ops, linalg_ops, math_ops, reduction_ops, slicing
from ._dispatch import NUMERIC, execute, int_tensor, to_tensor

__all__ = ["ResizeMethod", "resize", "resize_bilinear", "resize_nearest_neighbor", "convert_image_dtype",
           "flip_left_right", "flip_up_down", "rot90", "central_crop", "adjust_brightness", "rgb_to_grayscale",
           "per_image_standardization"]


def _iae(message):
    return InvalidArgumentError(None, None, message)


# --------------------------------------------------------------------------------------
# Interpolation tables (host NumPy, float32 as TF's kernels compute them)
# --------------------------------------------------------------------------------------
def _bilinear_matrix(in_size, out_size):
    """``(out_size, in_size)`` float32: row ``i`` holds the weights output ``i`` gives the input pixels."""
    scale = np.float32(in_size) / np.float32(out_size)
    matrix = np.zeros((out_size, in_size), np.float32)
    for i in range(out_size):
        source = (np.float32(i) + np.float32(0.5)) * scale - np.float32(0.5)
        floor = np.floor(source)
        lower = max(int(floor), 0)
        upper = min(int(np.ceil(source)), in_size - 1)
        lerp = np.float32(source - floor)
        matrix[i, lower] += np.float32(1) - lerp
        matrix[i, upper] += lerp
    return matrix


def _nearest_indices(in_size, out_size):
    """The input pixel each output pixel copies (half-pixel centers, TF's ``HalfPixelScalerForNN``)."""
    scale = np.float32(in_size) / np.float32(out_size)
    return np.array([max(0, min(int(np.floor((np.float32(i) + np.float32(0.5)) * scale)), in_size - 1))
                     for i in range(out_size)], np.int64)


def _size_pair(size, op_name):
    size = np.asarray(size)
    if size.shape != (2,):
        raise _iae(f"shape_t must have two elements {size.shape} [Op:{op_name}]")
    height, width = int(size[0]), int(size[1])
    if height <= 0 or width <= 0:
        raise _iae(f"output dimensions must be positive [Op:{op_name}]")
    return height, width


def _check_images(images, op_name):
    if images.ndim != 4:
        raise _iae(f"input must be 4-dimensional{list(images.shape)} [Op:{op_name}]")


# --------------------------------------------------------------------------------------
# ResizeBilinear and its gradient
# --------------------------------------------------------------------------------------
def _resize_bilinear_kernel(xp):
    def k(images, size, align_corners=False, half_pixel_centers=True):
        _check_images(images, "ResizeBilinear")
        height, width = _size_pair(size, "ResizeBilinear")
        wy = xp.asarray(_bilinear_matrix(images.shape[1], height))
        wx = xp.asarray(_bilinear_matrix(images.shape[2], width))
        return xp.einsum("yh,bhwc,xw->byxc", wy, images.astype(xp.float32), wx).astype(xp.float32)
    return k


def _resize_bilinear_grad_kernel(xp):
    def k(grads, original_image, align_corners=False, half_pixel_centers=True):
        wy = xp.asarray(_bilinear_matrix(original_image.shape[1], grads.shape[1]))
        wx = xp.asarray(_bilinear_matrix(original_image.shape[2], grads.shape[2]))
        out = xp.einsum("yh,byxc,xw->bhwc", wy, grads.astype(xp.float32), wx)
        return out.astype(original_image.dtype)
    return k


def _resized_shape(ic, name):
    images = ic.shape(0)
    if images.rank is not None and images.rank != 4:
        ic.error("Shape must be rank 4 but is rank " + str(images.rank))
    size = ic.constant_value(1)
    dims = images.as_list() if images.rank is not None else [None] * 4
    height = width = None
    if size is not None:
        size = np.asarray(size).reshape(-1)
        if size.shape == (2,):
            height, width = int(size[0]), int(size[1])
    return TensorShape([dims[0], height, width, dims[3]])


def _resize_bilinear_infer(ic):
    return [(dtypes.float32, _resized_shape(ic, "ResizeBilinear"))]


def _resize_bilinear_grad(op, grad):
    return [execute(_RESIZE_BILINEAR_GRAD, (grad, op.inputs[0]), dict(op.attrs)), None]


def _resize_bilinear_grad_infer(ic):
    return [(ic.dtype(1), ic.shape(1))]


def _resize_bilinear_grad_grad(op, grad):
    size = _spatial_size(op.inputs[0])
    return [execute(_RESIZE_BILINEAR, (math_ops.cast(grad, dtypes.float32), size), dict(op.attrs)), None]


_FLOAT_GRADS = frozenset([dtypes.float16, dtypes.float32, dtypes.float64])
_RESIZE_BILINEAR = register_op(
    "ResizeBilinear", kernel=_resize_bilinear_kernel, infer=_resize_bilinear_infer, grad=_resize_bilinear_grad,
    saves_inputs=True, saves_outputs=False, dtypes=NUMERIC,
    doc="Bilinear resize of NHWC images to `size` (half-pixel centers); float32 output.")
_RESIZE_BILINEAR_GRAD = register_op(
    "ResizeBilinearGrad", kernel=_resize_bilinear_grad_kernel, infer=_resize_bilinear_grad_infer,
    grad=_resize_bilinear_grad_grad, saves_inputs=True, saves_outputs=False, dtypes=_FLOAT_GRADS,
    doc="The gradient of ResizeBilinear: output gradients spread back with the interpolation weights.")


# --------------------------------------------------------------------------------------
# ResizeNearestNeighbor and its gradient
# --------------------------------------------------------------------------------------
def _resize_nearest_kernel(xp):
    def k(images, size, align_corners=False, half_pixel_centers=True):
        _check_images(images, "ResizeNearestNeighbor")
        height, width = _size_pair(size, "ResizeNearestNeighbor")
        rows = xp.asarray(_nearest_indices(images.shape[1], height))
        cols = xp.asarray(_nearest_indices(images.shape[2], width))
        return images[:, rows][:, :, cols]
    return k


def _resize_nearest_grad_kernel(xp):
    def k(grads, size, align_corners=False, half_pixel_centers=True):
        height, width = _size_pair(size, "ResizeNearestNeighborGrad")
        rows = _nearest_indices(height, grads.shape[1])
        cols = _nearest_indices(width, grads.shape[2])
        sy = np.zeros((height, grads.shape[1]), np.float64)
        sy[rows, np.arange(grads.shape[1])] = 1
        sx = np.zeros((width, grads.shape[2]), np.float64)
        sx[cols, np.arange(grads.shape[2])] = 1
        out = xp.einsum("hy,byxc,wx->bhwc", xp.asarray(sy, grads.dtype), grads, xp.asarray(sx, grads.dtype))
        return out.astype(grads.dtype)
    return k


def _resize_nearest_infer(ic):
    return [(ic.dtype(0), _resized_shape(ic, "ResizeNearestNeighbor"))]


def _spatial_size(t):
    """``[height, width]`` of NHWC ``t`` (a tensor, or the shape-only record a tape keeps)."""
    dims = TensorShape(t.shape).as_list() if TensorShape(t.shape).rank is not None else [None] * 4
    if dims[1] is not None and dims[2] is not None:
        return int_tensor([dims[1], dims[2]])
    return array_ops.shape(t)[1:3]


def _resize_nearest_grad(op, grad):
    size = _spatial_size(op.inputs[0])
    return [execute(_RESIZE_NEAREST_GRAD, (grad, size), dict(op.attrs)), None]


def _resize_nearest_grad_infer(ic):
    return [(ic.dtype(0), _resized_shape(ic, "ResizeNearestNeighborGrad"))]


def _resize_nearest_grad_grad(op, grad):
    size = _spatial_size(op.inputs[0])
    return [execute(_RESIZE_NEAREST, (grad, size), dict(op.attrs)), None]


_RESIZE_NEAREST = register_op(
    "ResizeNearestNeighbor", kernel=_resize_nearest_kernel, infer=_resize_nearest_infer, grad=_resize_nearest_grad,
    saves_inputs=False, saves_outputs=False, dtypes=NUMERIC,
    doc="Nearest-neighbour resize of NHWC images to `size` (half-pixel centers); the dtype is kept.")
_RESIZE_NEAREST_GRAD = register_op(
    "ResizeNearestNeighborGrad", kernel=_resize_nearest_grad_kernel, infer=_resize_nearest_grad_infer,
    grad=_resize_nearest_grad_grad, saves_inputs=False, saves_outputs=False, dtypes=_FLOAT_GRADS,
    doc="The gradient of ResizeNearestNeighbor: each output gradient added to the pixel it copied.")


def resize_bilinear(images, size, align_corners=False, half_pixel_centers=True, name=None):
    """``tf.compat.v1.image.resize_bilinear`` with TF 2's default (half-pixel centers): NHWC ``images``.
    Only ``align_corners=False, half_pixel_centers=True`` is implemented."""
    _check_mode(align_corners, half_pixel_centers)
    return execute(_RESIZE_BILINEAR, (to_tensor(images), int_tensor(size)),
                   {"align_corners": False, "half_pixel_centers": True}, name=name)


def resize_nearest_neighbor(images, size, align_corners=False, half_pixel_centers=True, name=None):
    """Nearest-neighbour resize of NHWC ``images`` (half-pixel centers, TF 2's ``tf.image.resize``)."""
    _check_mode(align_corners, half_pixel_centers)
    return execute(_RESIZE_NEAREST, (to_tensor(images), int_tensor(size)),
                   {"align_corners": False, "half_pixel_centers": True}, name=name)


def _check_mode(align_corners, half_pixel_centers):
    if align_corners or not half_pixel_centers:
        raise NotImplementedError("The engine's resize ops implement TF 2's sampling only: "
                                  "align_corners=False, half_pixel_centers=True.")


# --------------------------------------------------------------------------------------
# tf.image.resize
# --------------------------------------------------------------------------------------
class ResizeMethod(str, enum.Enum):
    """``tf.image.ResizeMethod``: the names ``tf.image.resize`` accepts (``"bilinear"``, ``"nearest"``, ...).
    The engine implements ``BILINEAR`` and ``NEAREST_NEIGHBOR``; the others raise ``NotImplementedError``."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"

    def __str__(self):
        return self.value


_METHODS = {m.value for m in ResizeMethod}


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """``tf.image.resize``: resize ``images`` (``[height, width, channels]`` or a batch of them) to ``size``.

    ``"bilinear"`` returns float32; ``"nearest"`` keeps the dtype. TF's errors: images of another rank, a
    ``size`` that is not two numbers, an unknown method: ``ValueError`` with TF's messages. Not implemented
    (``NotImplementedError``): ``preserve_aspect_ratio``, ``antialias``, and the methods other than those two.
    """
    method = method.value if isinstance(method, ResizeMethod) else method
    images = convert_to_tensor(images)
    rank = images.shape.rank
    if rank is None or rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    size = convert_to_tensor(size, dtype=dtypes.int32)
    if size.shape.rank != 1 or size.shape.as_list() != [2]:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if method not in _METHODS:
        raise ValueError(f"Resize method is not implemented: {method}")
    if method not in ("bilinear", "nearest") or preserve_aspect_ratio or antialias:
        raise NotImplementedError(f"tf.image.resize(method={method!r}, preserve_aspect_ratio="
                                  f"{preserve_aspect_ratio}, antialias={antialias}) is not implemented by the "
                                  f"engine: use method='bilinear' or 'nearest'.")
    batch = images if rank == 4 else array_ops.expand_dims(images, 0)
    fn = resize_bilinear if method == "bilinear" else resize_nearest_neighbor
    out = fn(batch, size, name=name)
    return out if rank == 4 else array_ops.squeeze(out, [0])


# --------------------------------------------------------------------------------------
# Dtype conversion
# --------------------------------------------------------------------------------------
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """``tf.image.convert_image_dtype``: floats are in ``[0, 1]``, integers in ``[0, MAX]``; convert between them.

    Integer to integer: multiply or floor-divide by the ratio of the ranges. Integer to float: cast, times
    ``1 / MAX``. Float to integer: times ``MAX + 0.5``, then cast (``saturate=True``: ``tf.saturate_cast``).
    Float to float: cast. The same dtype: returned as is.
    """
    image = convert_to_tensor(image)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if not (image.dtype.is_floating or image.dtype.is_integer):
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return array_ops.identity(image, name=name)
    if image.dtype.is_integer and dtype.is_integer:
        scale_in, scale_out = image.dtype.max, dtype.max
        if scale_in > scale_out:
            scale = (scale_in + 1) // (scale_out + 1)
            scaled = math_ops.floordiv(image, math_ops.cast(scale, image.dtype))
            return bitwise_ops.saturate_cast(scaled, dtype, name=name) if saturate else \
                math_ops.cast(scaled, dtype, name=name)
        scale = (scale_out + 1) // (scale_in + 1)
        cast = bitwise_ops.saturate_cast(image, dtype) if saturate else math_ops.cast(image, dtype)
        return math_ops.multiply(cast, math_ops.cast(scale, dtype), name=name)
    if image.dtype.is_floating and dtype.is_floating:
        return math_ops.cast(image, dtype, name=name)
    if image.dtype.is_integer:   # integer -> float
        cast = math_ops.cast(image, dtype)
        return math_ops.multiply(cast, math_ops.cast(1.0 / image.dtype.max, dtype), name=name)
    scale = dtype.max + 0.5        # float -> integer
    scaled = math_ops.multiply(image, math_ops.cast(scale, image.dtype))
    if saturate:
        return bitwise_ops.saturate_cast(scaled, dtype, name=name)
    return math_ops.cast(scaled, dtype, name=name)


# --------------------------------------------------------------------------------------
# Flips, rotations, crops
# --------------------------------------------------------------------------------------
def _at_least_3d(image):
    image = convert_to_tensor(image)
    if image.shape.rank is None or image.shape.rank < 3:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
    return image


def flip_left_right(image):
    """``tf.image.flip_left_right``: reverse the width axis of an image (or a batch of images)."""
    image = _at_least_3d(image)
    return array_ops.reverse(image, [image.shape.rank - 2])


def flip_up_down(image):
    """``tf.image.flip_up_down``: reverse the height axis of an image (or a batch of images)."""
    image = _at_least_3d(image)
    return array_ops.reverse(image, [image.shape.rank - 3])


def rot90(image, k=1, name=None):
    """``tf.image.rot90``: rotate counter-clockwise by ``k`` quarter turns (``k`` a Python int here)."""
    image = _at_least_3d(image)
    k = int(k) % 4
    batch = image.shape.rank == 4
    h, w = (1, 2) if batch else (0, 1)
    perm = [0, 2, 1, 3] if batch else [1, 0, 2]
    if k == 0:
        return image
    if k == 1:
        return array_ops.transpose(array_ops.reverse(image, [w]), perm, name=name)
    if k == 2:
        return array_ops.reverse(image, [h, w], name=name)
    return array_ops.reverse(array_ops.transpose(image, perm), [w], name=name)


def central_crop(image, central_fraction):
    """``tf.image.central_crop``: keep the central ``central_fraction`` of the height and width
    (``(0, 1]``, else ``ValueError``), as TF computes the box (truncating the start offsets)."""
    if central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    image = _at_least_3d(image)
    if central_fraction == 1.0:
        return image
    rank = image.shape.rank
    dims = image.shape.as_list()
    img_h, img_w = dims[rank - 3], dims[rank - 2]
    if img_h is None or img_w is None:
        raise NotImplementedError("central_crop of an image of unknown height or width is not implemented by the "
                                  "engine.")
    start_h = int((img_h - img_h * central_fraction) / 2)
    start_w = int((img_w - img_w * central_fraction) / 2)
    size_h, size_w = img_h - start_h * 2, img_w - start_w * 2
    if rank == 3:
        return slicing.slice(image, [start_h, start_w, 0], [size_h, size_w, -1])
    return slicing.slice(image, [0, start_h, start_w, 0], [-1, size_h, size_w, -1])


# --------------------------------------------------------------------------------------
# Colour
# --------------------------------------------------------------------------------------
def adjust_brightness(image, delta):
    """``tf.image.adjust_brightness``: add ``delta`` to every pixel, in float (integers go through
    ``convert_image_dtype``), converting back with saturation."""
    image = convert_to_tensor(image)
    orig_dtype = image.dtype
    flt = image if orig_dtype in (dtypes.float16, dtypes.float32) else convert_image_dtype(image, dtypes.float32)
    adjusted = math_ops.add(flt, math_ops.cast(delta, flt.dtype))
    return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def _adjust_contrast_kernel(xp):
    def k(images, contrast_factor):
        if images.ndim < 3:
            raise _iae(f"input must be at least 3-D, got shape{_fmt_dims(images.shape)} [Op:AdjustContrastv2]")
        mean = images.mean(axis=(-3, -2), keepdims=True, dtype=images.dtype)
        return ((images - mean) * images.dtype.type(contrast_factor) + mean).astype(images.dtype, copy=False)
    return k


def _fmt_dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _adjust_contrast_infer(ic):
    shape = ic.shape(0)
    if shape.rank is not None and shape.rank < 3:
        ic.error(f"Shape must be at least rank 3 but is rank {shape.rank}")
    return [(ic.dtype(0), shape)]


# TF registers no gradient for AdjustContrastv2 (guide/autodiff shows the LookupError): recorded, not differentiable
_ADJUST_CONTRAST = register_op("AdjustContrastv2", kernel=_adjust_contrast_kernel, infer=_adjust_contrast_infer,
            grad=no_registered_gradient, dtypes=frozenset([dtypes.float16, dtypes.float32]),
            doc="(x - mean) * contrast_factor + mean, the mean per channel over height and width.")


def adjust_contrast(images, contrast_factor):
    """``tf.image.adjust_contrast``: move each pixel away from (or towards) its channel's mean over the image
    by ``contrast_factor``, in float32 (integer images go through ``convert_image_dtype``, saturated back)."""
    images = convert_to_tensor(images)
    orig_dtype = images.dtype
    flt = images if orig_dtype in (dtypes.float16, dtypes.float32) else convert_image_dtype(images, dtypes.float32)
    adjusted = execute(_ADJUST_CONTRAST, (flt, math_ops.cast(contrast_factor, dtypes.float32)), {},
                       name="AdjustContrastv2")
    return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def rgb_to_grayscale(images, name=None):
    """``tf.image.rgb_to_grayscale``: ``0.2989 R + 0.587 G + 0.114 B`` in float32, one channel, the dtype kept."""
    images = convert_to_tensor(images)
    orig_dtype = images.dtype
    flt = convert_image_dtype(images, dtypes.float32)
    weights = convert_to_tensor(np.array([0.2989, 0.5870, 0.1140], np.float32))
    gray = array_ops.expand_dims(linalg_ops.tensordot(flt, weights, [[-1], [-1]]), -1)
    return convert_image_dtype(gray, orig_dtype, name=name)


def per_image_standardization(image):
    """``tf.image.per_image_standardization``: each image to mean 0 and variance 1, in float32 (any input is
    cast, not rescaled): ``(x - mean) / max(stddev, 1 / sqrt(num_pixels))``."""
    image = math_ops.cast(_at_least_3d(image), dtypes.float32)   # (a plain cast, as TF: no rescaling)
    num_pixels = reduction_ops.reduce_prod(array_ops.shape(image)[-3:])
    mean = reduction_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    stddev = reduction_ops.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
    min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, image.dtype))
    adjusted = math_ops.maximum(stddev, min_stddev)
    return math_ops.divide(math_ops.subtract(image, mean), adjusted)
