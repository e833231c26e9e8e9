"""``tf.keras.preprocessing.image``: ``ImageDataGenerator`` and the image helpers, on NumPy (and PIL).

Keras 3 keeps these Keras 1 APIs (``keras.src.legacy.preprocessing.image``) for old code; the ``tf.data``
guide uses them::

    img_gen = tf.keras.preprocessing.image.ImageDataGenerator(rescale=1./255, rotation_range=20)
    images, labels = next(img_gen.flow_from_directory(flowers))   # Found 3670 images belonging to 5 classes.
    images.dtype, images.shape    # float32 (32, 256, 256, 3); labels: float32 (32, 5), one-hot

* ``ImageDataGenerator(...)`` stores its augmentation settings. For every image an iterator produces,
  ``get_random_transform`` draws the parameters (rotation angle, shifts, shear, zoom, flips, channel
  shift, brightness) from NumPy's *global* random generator, in Keras' order; ``apply_transform``
  applies them (one affine resampling, then channel shift, flips, brightness); ``standardize``
  then applies ``preprocessing_function``, ``rescale``, the sample-wise and the feature-wise
  normalizations (the latter after ``fit(x)``).
* ``flow(x, y)`` iterates over NumPy arrays (rank 4, channels last by default) and
  ``flow_from_directory(directory)`` over image files in one sub-directory per class (sorted names:
  ``class_indices``), read with PIL, resized to ``target_size`` (default ``(256, 256)``, nearest
  neighbour). Labels: one-hot float32 for ``class_mode="categorical"``, the float32 class index for
  ``"sparse"``/``"binary"``, the images for ``"input"``, none for ``None``.
* The iterators loop forever (``next`` after the last batch starts a new epoch, reshuffled), and are
  also sequences: ``len(it)`` batches, ``it[i]``. With a ``seed``, ``np.random.seed(seed +
  batches seen so far)`` is called before each batch, as Keras does, so a seeded pipeline is
  deterministic and gives the same shuffles and augmentations as Keras.

The resampling is ``scipy.ndimage.affine_transform``'s, re-done with NumPy (the engine needs no
SciPy): ``interpolation_order`` 0 (nearest) or 1 (linear, the default), ``fill_mode`` ``"nearest"``
(the default), ``"constant"`` (``cval``), ``"reflect"`` or ``"wrap"`` (SciPy's legacy one, whose period
is the size minus one). Deliberate differences from Keras: spline orders above 1 raise
``NotImplementedError``; the iterators are plain Python iterators (Keras' derive from ``keras.utils.PyDataset``);
``flow_from_dataframe`` is not provided.
"""
import io
import os
import pathlib
import threading
import warnings

import numpy as np

from .. import backend

try:   # PIL reads and writes the image files (Keras needs it too)
    from PIL import Image as _pil_image
    from PIL import ImageEnhance as _pil_enhance
except ImportError:   # pragma: no cover - depends on the environment
    _pil_image = _pil_enhance = None

__all__ = ["ImageDataGenerator", "Iterator", "NumpyArrayIterator", "DirectoryIterator", "load_img",
           "img_to_array", "array_to_img", "save_img", "smart_resize", "apply_affine_transform",
           "apply_channel_shift", "apply_brightness_shift", "random_rotation", "random_shift", "random_shear",
           "random_zoom", "random_channel_shift", "random_brightness"]

_DATA_FORMATS = ("channels_last", "channels_first")

if _pil_image is not None:
    _PIL_INTERPOLATION_METHODS = {
        "nearest": _pil_image.NEAREST, "bilinear": _pil_image.BILINEAR, "bicubic": _pil_image.BICUBIC,
        "hamming": _pil_image.HAMMING, "box": _pil_image.BOX, "lanczos": _pil_image.LANCZOS}
else:   # pragma: no cover
    _PIL_INTERPOLATION_METHODS = {}


def _data_format(data_format):
    data_format = "channels_last" if data_format is None else str(data_format).lower()
    if data_format not in _DATA_FORMATS:
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. "
                         f"Received: data_format={data_format}")
    return data_format


def _require_pil(what):
    if _pil_image is None:
        raise ImportError(f"Could not import PIL.Image. The use of `{what}` requires PIL.")


# --------------------------------------------------------------------------------------
# Image files <-> arrays
# --------------------------------------------------------------------------------------
def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """A PIL image read from ``path`` (a path or ``io.BytesIO``), converted to ``color_mode``
    (``"rgb"``, ``"rgba"``, ``"grayscale"``) and resized to ``target_size`` ``(height, width)``.

    ``keep_aspect_ratio=True`` crops the centre to the target's aspect ratio before resizing.
    """
    _require_pil("load_img")
    if isinstance(path, io.BytesIO):
        img = _pil_image.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        if isinstance(path, pathlib.Path):
            path = str(path.resolve())
        with open(path, "rb") as f:
            img = _pil_image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif color_mode == "rgb":
        if img.mode != "RGB":
            img = img.convert("RGB")
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is not None:
        width_height = (target_size[1], target_size[0])
        if img.size != width_height:
            if interpolation not in _PIL_INTERPOLATION_METHODS:
                raise ValueError(f"Invalid interpolation method {interpolation} specified. Supported methods are "
                                 f"{', '.join(_PIL_INTERPOLATION_METHODS.keys())}")
            resample = _PIL_INTERPOLATION_METHODS[interpolation]
            if keep_aspect_ratio:
                width, height = img.size
                target_width, target_height = width_height
                crop_height = min(height, (width * target_height) // target_width)
                crop_width = min(width, (height * target_width) // target_height)
                top, left = (height - crop_height) // 2, (width - crop_width) // 2
                img = img.resize(width_height, resample, box=[left, top, left + crop_width, top + crop_height])
            else:
                img = img.resize(width_height, resample)
    return img


def img_to_array(img, data_format=None, dtype=None):
    """A PIL image as a rank-3 NumPy array (``float32`` by default): ``(height, width, channels)``, or
    channels first; a grayscale image gets a channel dimension of 1."""
    data_format = _data_format(data_format)
    x = np.asarray(img, dtype=dtype or backend.floatx())
    if x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    elif x.ndim == 2:
        x = x.reshape((1,) + x.shape if data_format == "channels_first" else x.shape + (1,))
    else:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    return x


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A rank-3 array as a PIL image (RGB, RGBA or grayscale by its channel count); ``scale`` first maps
    its values to [0, 255]."""
    data_format = _data_format(data_format)
    _require_pil("array_to_img")
    x = np.asarray(x, dtype=dtype or backend.floatx())
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    if x.shape[2] == 4:
        return _pil_image.fromarray(x.astype("uint8"), "RGBA")
    if x.shape[2] == 3:
        return _pil_image.fromarray(x.astype("uint8"), "RGB")
    if x.shape[2] == 1:
        if np.max(x) > 255:
            return _pil_image.fromarray(x[:, :, 0].astype("int32"), "I")
        return _pil_image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {x.shape[2]}")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Write the array ``x`` as an image file (``array_to_img``, then PIL's ``save``)."""
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or file_format == "jpeg"):
        warnings.warn("The JPG format does not support RGBA images, converting to RGB.")
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last"):
    """Resize ``x`` (an image or a batch, channels last) to ``size`` without distorting it: the largest
    centred crop of the target aspect ratio, resized (with PIL, per channel, in float32)."""
    _require_pil("smart_resize")
    x = np.asarray(x)
    if data_format == "channels_first":
        x = np.moveaxis(x, -3, -1)
    batch = x.ndim == 4
    images = x if batch else x[None]
    height, width = images.shape[1], images.shape[2]
    target_height, target_width = size
    crop_height = min(height, int(width * target_height / target_width))
    crop_width = min(width, int(height * target_width / target_height))
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    images = images[:, top:top + crop_height, left:left + crop_width]
    resample = _PIL_INTERPOLATION_METHODS[interpolation]
    out = np.stack([np.stack([np.asarray(_pil_image.fromarray(np.asarray(img[..., c], np.float32), "F").resize(
        (target_width, target_height), resample)) for c in range(img.shape[-1])], axis=-1) for img in images])
    out = out if batch else out[0]
    return np.moveaxis(out, -1, -3) if data_format == "channels_first" else out


# --------------------------------------------------------------------------------------
# Transformations of one image (rank 3)
# --------------------------------------------------------------------------------------
def flip_axis(x, axis):
    """``x`` reversed along ``axis``."""
    return np.flip(np.asarray(x), axis)


def _extend(index, n, mode):
    """Integer sample positions mapped into ``[0, n)`` as ``fill_mode`` extends the image beyond its edges."""
    if mode == "reflect":    # d c b a | a b c d | d c b a
        index = np.mod(index, 2 * n)
        return np.where(index >= n, 2 * n - 1 - index, index)
    return np.clip(index, 0, n - 1)


def _wrap_coordinate(coordinate, n):
    """SciPy's legacy ``"wrap"``: a coordinate outside ``[0, n - 1]`` is moved by a multiple of ``n - 1``
    (not ``n``) into it, then interpolated there."""
    if n <= 1:
        return np.zeros_like(coordinate)
    sz = n - 1
    below = coordinate + sz * (np.trunc(-coordinate / sz) + 1)
    above = coordinate - sz * np.trunc(coordinate / sz)
    return np.where(coordinate < 0, below, np.where(coordinate > n - 1, above, coordinate))


def _resample(image, matrix, offset, order, mode, cval):
    """``scipy.ndimage.affine_transform(image, matrix, offset, order, mode=mode, cval=cval)`` for a 2-D
    ``image``: output pixel ``o`` takes the input's value at ``matrix @ o + offset``."""
    h, w = image.shape
    rows, cols = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    r = matrix[0, 0] * rows + matrix[0, 1] * cols + offset[0]
    c = matrix[1, 0] * rows + matrix[1, 1] * cols + offset[1]
    if mode == "wrap":
        r, c = _wrap_coordinate(r, h), _wrap_coordinate(c, w)
    source = np.asarray(image, dtype=np.float64)
    if order == 0:
        out = source[_extend(np.floor(r + 0.5).astype(np.int64), h, mode),
                     _extend(np.floor(c + 0.5).astype(np.int64), w, mode)]
    elif order == 1:
        r0, c0 = np.floor(r), np.floor(c)
        fr, fc = r - r0, c - c0
        r0, c0 = r0.astype(np.int64), c0.astype(np.int64)
        ra, rb = _extend(r0, h, mode), _extend(r0 + 1, h, mode)
        ca, cb = _extend(c0, w, mode), _extend(c0 + 1, w, mode)
        out = ((1 - fr) * ((1 - fc) * source[ra, ca] + fc * source[ra, cb])
               + fr * ((1 - fc) * source[rb, ca] + fc * source[rb, cb]))
    else:
        raise NotImplementedError(f"interpolation_order={order}: the engine resamples with order 0 (nearest) "
                                  f"or 1 (linear) only (Keras uses SciPy's splines for higher orders).")
    if mode == "constant":   # no interpolation beyond the edges: cval there
        outside = (r < 0) | (r > h - 1) | (c < 0) | (c > w - 1)
        out = np.where(outside, cval, out)
    return out.astype(image.dtype, copy=False)


def _transform_matrix_offset_center(matrix, x, y):
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset_matrix = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset_matrix = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset_matrix @ matrix @ reset_matrix


def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=1, col_axis=2, channel_axis=0,
                           fill_mode="nearest", cval=0.0, order=1):
    """Rotate (``theta`` degrees), shift (``tx`` rows, ``ty`` columns), shear (degrees) and zoom one
    image (rank 3), about its centre, as Keras composes them; every channel is resampled alike."""
    if np.unique([row_axis, col_axis, channel_axis]).size != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    actual = {row_axis, col_axis, channel_axis}
    if actual != {0, 1, 2}:
        raise ValueError(f"Invalid axis' indices: {actual - {0, 1, 2}}")
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in [0, 2]:
        raise ValueError("Channels are allowed and the first and last dimensions.")
    matrix = None
    if theta != 0:
        theta = np.deg2rad(theta)
        matrix = np.array([[np.cos(theta), -np.sin(theta), 0], [np.sin(theta), np.cos(theta), 0], [0, 0, 1]])
    if tx != 0 or ty != 0:
        shift = np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]])
        matrix = shift if matrix is None else matrix @ shift
    if shear != 0:
        shear = np.deg2rad(shear)
        shear_matrix = np.array([[1, -np.sin(shear), 0], [0, np.cos(shear), 0], [0, 0, 1]])
        matrix = shear_matrix if matrix is None else matrix @ shear_matrix
    if zx != 1 or zy != 1:
        zoom = np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]])
        matrix = zoom if matrix is None else matrix @ zoom
    if matrix is None:
        return x
    h, w = x.shape[row_axis], x.shape[col_axis]
    matrix = _transform_matrix_offset_center(matrix, h, w)
    x = np.rollaxis(x, channel_axis, 0)
    if col_axis > row_axis:   # the matrix is in (x, y) order; arrays index (row, col)
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    channels = [_resample(channel, matrix[:2, :2], matrix[:2, 2], order, fill_mode, cval) for channel in x]
    return np.rollaxis(np.stack(channels, axis=0), 0, channel_axis + 1)


def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                    interpolation_order=1):
    """Rotate by an angle drawn uniformly from ``[-rg, rg]`` degrees."""
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(x, theta=theta, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    """Shift by fractions of the height (``hrg``) and width (``wrg``) drawn uniformly."""
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return apply_affine_transform(x, tx=tx, ty=ty, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    """Shear by an angle drawn uniformly from ``[-intensity, intensity]`` degrees."""
    shear = np.random.uniform(-intensity, intensity)
    return apply_affine_transform(x, shear=shear, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                interpolation_order=1):
    """Zoom by two factors (rows, columns) drawn uniformly from ``zoom_range``."""
    if len(zoom_range) != 2:
        raise ValueError(f"`zoom_range` should be a tuple or list of two floats. Received: {zoom_range}")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(x, zx=zx, zy=zy, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def apply_channel_shift(x, intensity, channel_axis=0):
    """Add ``intensity`` to every channel, clipped to the image's original value range."""
    x = np.rollaxis(x, channel_axis, 0)
    min_x, max_x = np.min(x), np.max(x)
    x = np.stack([np.clip(channel + intensity, min_x, max_x) for channel in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def random_channel_shift(x, intensity_range, channel_axis=0):
    """``apply_channel_shift`` by an intensity drawn uniformly from ``[-intensity_range, intensity_range]``."""
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def apply_brightness_shift(x, brightness, scale=True):
    """Change the brightness by the factor ``brightness`` (PIL's ``ImageEnhance.Brightness``)."""
    _require_pil("apply_brightness_shift")
    x_min, x_max = np.min(x), np.max(x)
    local_scale = (x_min < 0) or (x_max > 255)
    img = array_to_img(x, scale=local_scale or scale)
    x = img_to_array(_pil_enhance.Brightness(img).enhance(brightness))
    if not scale and local_scale:
        x = x / 255 * (x_max - x_min) + x_min
    return x


def random_brightness(x, brightness_range, scale=True):
    """``apply_brightness_shift`` by a factor drawn uniformly from ``brightness_range``."""
    if len(brightness_range) != 2:
        raise ValueError(f"`brightness_range should be tuple or list of two floats. Received: {brightness_range}")
    u = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, u, scale)


# --------------------------------------------------------------------------------------
# Iterators
# --------------------------------------------------------------------------------------
class Iterator:
    """Batches of ``batch_size`` samples out of ``n``, forever (``next``), or by index (``it[i]``).

    The order is ``np.random.permutation(n)`` at the start of every epoch when ``shuffle``; with a
    ``seed``, NumPy's global generator is re-seeded with ``seed + total_batches_seen`` before each
    batch (Keras' scheme). Subclasses build a batch in ``_get_batches_of_transformed_samples``.
    """

    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    def __init__(self, n, batch_size, shuffle, seed):
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = np.arange(self.n)
        if self.shuffle:
            self.index_array = np.random.permutation(self.n)

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._get_batches_of_transformed_samples(
            self.index_array[self.batch_size * idx: self.batch_size * (idx + 1)])

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self):
        self._set_index_array()

    def reset(self):
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current = 0 if self.n == 0 else (self.batch_index * self.batch_size) % self.n
            if self.n > current + self.batch_size:
                self.batch_index += 1
            else:
                self.batch_index = 0
            self.total_batches_seen += 1
            yield self.index_array[current: current + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    next = __next__

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError


class NumpyArrayIterator(Iterator):
    """``ImageDataGenerator.flow(x, y)``: batches ``(images, labels)`` (``images`` alone without ``y``;
    ``(images, labels, sample_weights)`` with ``sample_weight``), each image augmented and standardized."""

    def __init__(self, x, y, image_data_generator, batch_size=32, shuffle=False, sample_weight=None, seed=None,
                 data_format=None, save_to_dir=None, save_prefix="", save_format="png", subset=None,
                 ignore_class_split=False, dtype=None):
        data_format = _data_format(data_format)
        self.dtype = dtype or backend.floatx()
        if isinstance(x, (tuple, list)):
            x_misc = [np.asarray(x[1])] if not isinstance(x[1], list) else [np.asarray(xx) for xx in x[1]]
            x = x[0]
            for xx in x_misc:
                if len(x) != len(xx):
                    raise ValueError(f"All of the arrays in `x` should have the same length. Found a pair with: "
                                     f"len(x[0]) = {len(x)}, len(x[?]) = {len(xx)}")
        else:
            x_misc = []
        if y is not None and len(x) != len(y):
            raise ValueError(f"`x` (images tensor) and `y` (labels) should have the same length. Found: "
                             f"x.shape = {np.asarray(x).shape}, y.shape = {np.asarray(y).shape}")
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError(f"`x` (images tensor) and `sample_weight` should have the same length. Found: "
                             f"x.shape = {np.asarray(x).shape}, sample_weight.shape = "
                             f"{np.asarray(sample_weight).shape}")
        if subset is not None:
            if subset not in {"training", "validation"}:
                raise ValueError(f'Invalid subset name: {subset}; expected "training" or "validation".')
            split_idx = int(len(x) * image_data_generator._validation_split)
            if (y is not None and not ignore_class_split
                    and not np.array_equal(np.unique(y[:split_idx]), np.unique(y[split_idx:]))):
                raise ValueError("Training and validation subsets have different number of classes after the "
                                 "split. If your numpy arrays are sorted by the label, you might want to shuffle "
                                 "them.")
            part = slice(None, split_idx) if subset == "validation" else slice(split_idx, None)
            x = x[part]
            x_misc = [np.asarray(xx[part]) for xx in x_misc]
            if y is not None:
                y = y[part]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError(f"Input data in `NumpyArrayIterator` should have rank 4. You passed an array with "
                             f"shape {self.x.shape}")
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            warnings.warn(f'NumpyArrayIterator is set to use the data format convention "{data_format}" (channels '
                          f"on axis {channels_axis}), i.e. expected either 1, 3, or 4 channels on axis "
                          f"{channels_axis}. However, it was passed an array with shape {self.x.shape} "
                          f"({self.x.shape[channels_axis]} channels).")
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = self.image_data_generator.get_random_transform(x.shape)
            x = self.image_data_generator.apply_transform(x.astype(self.dtype), params)
            batch_x[i] = self.image_data_generator.standardize(x)
        if self.save_to_dir:
            for i, j in enumerate(index_array):
                img = array_to_img(batch_x[i], self.data_format, scale=True)
                img.save(os.path.join(self.save_to_dir, f"{self.save_prefix}_{j}_{np.random.randint(1e4)}."
                                                        f"{self.save_format}"))
        misc = [xx[index_array] for xx in self.x_misc]
        output = (batch_x if not misc else [batch_x] + misc,)
        if self.y is None:
            return output[0]
        output += (self.y[index_array],)
        if self.sample_weight is not None:
            output += (self.sample_weight[index_array],)
        return output


def _iter_valid_files(directory, white_list_formats, follow_links):
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda entry: entry[0]):
        for fname in sorted(files):
            if fname.lower().endswith(".tiff"):
                warnings.warn('Using ".tiff" files with multiple bands will cause distortion. Please verify your '
                              'output.')
            if fname.lower().endswith(white_list_formats):
                yield root, fname


def _list_valid_filenames_in_directory(directory, white_list_formats, split, class_indices, follow_links):
    """``(class indices, paths relative to directory's parent)`` of the image files under one class
    directory (``split``: the fraction ``(start, stop)`` of them to keep)."""
    dirname = os.path.basename(directory)
    files = list(_iter_valid_files(directory, white_list_formats, follow_links))
    if split:
        files = files[int(split[0] * len(files)):int(split[1] * len(files))]
    classes, filenames = [], []
    for root, fname in files:
        classes.append(class_indices[dirname])
        filenames.append(os.path.join(dirname, os.path.relpath(os.path.join(root, fname), directory)))
    return classes, filenames


class DirectoryIterator(Iterator):
    """``ImageDataGenerator.flow_from_directory(directory)``: the images of ``directory/<class>/...``.

    The classes are the sub-directories, sorted (or ``classes``); ``class_indices`` maps their names to
    indices, ``classes`` holds each file's index, ``filenames`` the paths (relative to ``directory``),
    ``samples`` their number. Creating one prints ``Found N images belonging to K classes.``
    """

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(self, directory, image_data_generator, target_size=(256, 256), color_mode="rgb", classes=None,
                 class_mode="categorical", batch_size=32, shuffle=True, seed=None, data_format=None,
                 save_to_dir=None, save_prefix="", save_format="png", follow_links=False, subset=None,
                 interpolation="nearest", keep_aspect_ratio=False, dtype=None):
        data_format = _data_format(data_format)
        self.dtype = dtype or backend.floatx()
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        if color_mode not in {"rgb", "rgba", "grayscale"}:
            raise ValueError(f'Invalid color mode: {color_mode}; expected "rgb", "rgba", or "grayscale".')
        self.color_mode = color_mode
        self.data_format = data_format
        channels = {"rgba": 4, "rgb": 3, "grayscale": 1}[color_mode]
        self.image_shape = (self.target_size + (channels,) if data_format == "channels_last"
                            else (channels,) + self.target_size)
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        self.interpolation = interpolation
        if subset is not None:
            validation_split = image_data_generator._validation_split
            if subset == "validation":
                split = (0, validation_split)
            elif subset == "training":
                split = (validation_split, 1)
            else:
                raise ValueError(f'Invalid subset name: {subset};expected "training" or "validation"')
        else:
            split = None
        self.split = split
        self.subset = subset
        self.directory = directory
        if class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of: {self.allowed_class_modes}")
        self.class_mode = class_mode
        if not classes:
            classes = [sub for sub in sorted(os.listdir(directory)) if os.path.isdir(os.path.join(directory, sub))]
        self.num_classes = len(classes)
        self.class_indices = dict(zip(classes, range(len(classes))))
        self.filenames = []
        labels = []
        for subdir in classes:
            found, filenames = _list_valid_filenames_in_directory(
                os.path.join(directory, subdir), self.white_list_formats, split, self.class_indices, follow_links)
            labels += found
            self.filenames += filenames
        self.samples = len(self.filenames)
        self.classes = np.array(labels, dtype="int32").reshape(self.samples)
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.", flush=True)
        self._filepaths = [os.path.join(directory, fname) for fname in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self):
        """The paths of the image files (``directory`` joined to ``filenames``)."""
        return self._filepaths

    @property
    def labels(self):
        return self.classes

    @property
    def sample_weight(self):
        return None

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        for i, j in enumerate(index_array):
            img = load_img(self._filepaths[j], color_mode=self.color_mode, target_size=self.target_size,
                           interpolation=self.interpolation, keep_aspect_ratio=self.keep_aspect_ratio)
            x = img_to_array(img, data_format=self.data_format)
            img.close()
            if self.image_data_generator:
                params = self.image_data_generator.get_random_transform(x.shape)
                x = self.image_data_generator.apply_transform(x, params)
                x = self.image_data_generator.standardize(x)
            batch_x[i] = x
        if self.save_to_dir:
            for i, j in enumerate(index_array):
                img = array_to_img(batch_x[i], self.data_format, scale=True)
                img.save(os.path.join(self.save_to_dir, f"{self.save_prefix}_{j}_{np.random.randint(1e7)}."
                                                        f"{self.save_format}"))
        if self.class_mode == "input":
            batch_y = batch_x.copy()
        elif self.class_mode in {"binary", "sparse"}:
            batch_y = self.classes[index_array].astype(self.dtype)
        elif self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            batch_y[np.arange(len(index_array)), self.classes[index_array]] = 1.0
        else:
            return batch_x
        return batch_x, batch_y


# --------------------------------------------------------------------------------------
# ImageDataGenerator
# --------------------------------------------------------------------------------------
class ImageDataGenerator:
    """Real-time augmentation and normalization of image batches (Keras' legacy API; see the module doc).

    ``rotation_range`` (degrees), ``width_shift_range``/``height_shift_range`` (a fraction of the size
    when < 1, pixels otherwise; a list: choices), ``shear_range`` (degrees), ``zoom_range`` (a float
    ``z``: ``[1 - z, 1 + z]``), ``channel_shift_range``, ``brightness_range``, ``horizontal_flip``,
    ``vertical_flip``: the random transformations; ``rescale`` multiplies, ``preprocessing_function``
    runs first; ``featurewise_*``/``zca_whitening`` need ``fit(x)``; ``validation_split`` makes the
    ``subset="training"``/``"validation"`` of ``flow``/``flow_from_directory``.
    """

    def __init__(self, featurewise_center=False, samplewise_center=False, featurewise_std_normalization=False,
                 samplewise_std_normalization=False, zca_whitening=False, zca_epsilon=1e-6, rotation_range=0,
                 width_shift_range=0.0, height_shift_range=0.0, brightness_range=None, shear_range=0.0,
                 zoom_range=0.0, channel_shift_range=0.0, fill_mode="nearest", cval=0.0, horizontal_flip=False,
                 vertical_flip=False, rescale=None, preprocessing_function=None, data_format=None,
                 validation_split=0.0, interpolation_order=1, dtype=None):
        if data_format is None:
            data_format = "channels_last"
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.zoom_range = zoom_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.dtype = dtype or backend.floatx()
        self.interpolation_order = interpolation_order
        if data_format not in _DATA_FORMATS:
            raise ValueError('`data_format` should be `"channels_last"` (channel after row and column) or '
                             f'`"channels_first"` (channel before row and column). Received: {data_format}')
        self.data_format = data_format
        if data_format == "channels_first":
            self.channel_axis, self.row_axis, self.col_axis = 1, 2, 3
        else:
            self.channel_axis, self.row_axis, self.col_axis = 3, 1, 2
        if validation_split and not 0 < validation_split < 1:
            raise ValueError(f"`validation_split` must be strictly between 0 and 1.  Received: {validation_split}")
        self._validation_split = validation_split
        self.mean = None
        self.std = None
        self.zca_whitening_matrix = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(val, (float, int)) for val in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(f"`zoom_range` should be a float or a tuple or list of two floats. Received: "
                             f"{zoom_range}")
        if zca_whitening:
            if not featurewise_center:
                self.featurewise_center = True
                warnings.warn("This ImageDataGenerator specifies `zca_whitening`, which overrides setting of "
                              "`featurewise_center`.")
            if featurewise_std_normalization:
                self.featurewise_std_normalization = False
                warnings.warn("This ImageDataGenerator specifies `zca_whitening` which overrides setting "
                              "of`featurewise_std_normalization`.")
        if featurewise_std_normalization and not featurewise_center:
            self.featurewise_center = True
            warnings.warn("This ImageDataGenerator specifies `featurewise_std_normalization`, which overrides "
                          "setting of `featurewise_center`.")
        if samplewise_std_normalization and not samplewise_center:
            self.samplewise_center = True
            warnings.warn("This ImageDataGenerator specifies `samplewise_std_normalization`, which overrides "
                          "setting of `samplewise_center`.")
        if brightness_range is not None:
            if not isinstance(brightness_range, (tuple, list)) or len(brightness_range) != 2:
                raise ValueError(f"`brightness_range should be tuple or list of two floats. Received: "
                                 f"{brightness_range}")
        self.brightness_range = brightness_range

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None, save_to_dir=None,
             save_prefix="", save_format="png", ignore_class_split=False, subset=None):
        """A ``NumpyArrayIterator`` over the images ``x`` (rank 4) and labels ``y``."""
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle, sample_weight=sample_weight,
                                  seed=seed, data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format,
                                  ignore_class_split=ignore_class_split, subset=subset, dtype=self.dtype)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode="rgb", classes=None,
                            class_mode="categorical", batch_size=32, shuffle=True, seed=None, save_to_dir=None,
                            save_prefix="", save_format="png", follow_links=False, subset=None,
                            interpolation="nearest", keep_aspect_ratio=False):
        """A ``DirectoryIterator`` over the images of ``directory/<class>/`` (prints what it found)."""
        return DirectoryIterator(directory, self, target_size=target_size, color_mode=color_mode,
                                 keep_aspect_ratio=keep_aspect_ratio, classes=classes, class_mode=class_mode,
                                 data_format=self.data_format, batch_size=batch_size, shuffle=shuffle, seed=seed,
                                 save_to_dir=save_to_dir, save_prefix=save_prefix, save_format=save_format,
                                 follow_links=follow_links, subset=subset, interpolation=interpolation,
                                 dtype=self.dtype)

    def standardize(self, x):
        """Normalize ``x`` in place (and return it): ``preprocessing_function``, ``rescale``, sample-wise
        centring/scaling, then the feature-wise statistics and ZCA matrix computed by ``fit``."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is not None:
                x -= self.mean
            else:
                warnings.warn("This ImageDataGenerator specifies `featurewise_center`, but it hasn't been fit on "
                              "any training data. Fit it first by calling `.fit(numpy_data)`.")
        if self.featurewise_std_normalization:
            if self.std is not None:
                x /= self.std + 1e-6
            else:
                warnings.warn("This ImageDataGenerator specifies `featurewise_std_normalization`, but it hasn't "
                              "been fit on any training data. Fit it first by calling `.fit(numpy_data)`.")
        if self.zca_whitening:
            if self.zca_whitening_matrix is not None:
                flat_x = x.reshape(-1, int(np.prod(x.shape[-3:])))
                x = np.reshape(flat_x @ self.zca_whitening_matrix, x.shape)
            else:
                warnings.warn("This ImageDataGenerator specifies `zca_whitening`, but it hasn't been fit on any "
                              "training data. Fit it first by calling `.fit(numpy_data)`.")
        return x

    def get_random_transform(self, img_shape, seed=None):
        """The parameters of one random transformation (a dict: ``theta``, ``tx``, ``ty``, ``shear``, ``zx``,
        ``zy``, ``flip_horizontal``, ``flip_vertical``, ``channel_shift_intensity``, ``brightness``), drawn
        from NumPy's global generator in Keras' order (``seed`` re-seeds it first)."""
        img_row_axis, img_col_axis = self.row_axis - 1, self.col_axis - 1
        if seed is not None:
            np.random.seed(seed)
        theta = np.random.uniform(-self.rotation_range, self.rotation_range) if self.rotation_range else 0
        tx = self._random_shift(self.height_shift_range, img_shape[img_row_axis])
        ty = self._random_shift(self.width_shift_range, img_shape[img_col_axis])
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_horizontal, "flip_vertical": flip_vertical,
                "channel_shift_intensity": channel_shift_intensity, "brightness": brightness}

    @staticmethod
    def _random_shift(shift_range, size):
        if not shift_range:
            return 0
        try:   # a 1-D array-like or an int: a choice, with a random sign
            shift = np.random.choice(shift_range)
            shift *= np.random.choice([-1, 1])
        except ValueError:   # a float: uniform
            shift = np.random.uniform(-shift_range, shift_range)
        if np.max(shift_range) < 1:
            shift *= size
        return shift

    def apply_transform(self, x, transform_parameters):
        """Apply the parameters of ``get_random_transform`` to one image (rank 3): the affine part, then
        the channel shift, the flips and the brightness."""
        img_row_axis, img_col_axis, img_channel_axis = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = apply_affine_transform(
            x, transform_parameters.get("theta", 0), transform_parameters.get("tx", 0),
            transform_parameters.get("ty", 0), transform_parameters.get("shear", 0),
            transform_parameters.get("zx", 1), transform_parameters.get("zy", 1), row_axis=img_row_axis,
            col_axis=img_col_axis, channel_axis=img_channel_axis, fill_mode=self.fill_mode, cval=self.cval,
            order=self.interpolation_order)
        if transform_parameters.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, transform_parameters["channel_shift_intensity"], img_channel_axis)
        if transform_parameters.get("flip_horizontal", False):
            x = flip_axis(x, img_col_axis)
        if transform_parameters.get("flip_vertical", False):
            x = flip_axis(x, img_row_axis)
        if transform_parameters.get("brightness") is not None:
            x = apply_brightness_shift(x, transform_parameters["brightness"], False)
        return x

    def random_transform(self, x, seed=None):
        """One image, randomly transformed (``get_random_transform`` + ``apply_transform``)."""
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Compute the feature-wise mean, standard deviation and ZCA matrix of the images ``x`` (rank 4),
        what ``featurewise_center``, ``featurewise_std_normalization`` and ``zca_whitening`` use."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input to `.fit()` should have rank 4. Got array with shape: {x.shape}")
        if x.shape[self.channel_axis] not in {1, 3, 4}:
            warnings.warn(f'Expected input to be images (as Numpy array) following the data format convention '
                          f'"{self.data_format}" (channels on axis {self.channel_axis}), i.e. expected either 1, 3 '
                          f"or 4 channels on axis {self.channel_axis}. However, it was passed an array with shape "
                          f"{x.shape} ({x.shape[self.channel_axis]} channels).")
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            ax = np.zeros((rounds * x.shape[0],) + x.shape[1:], dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    ax[i + r * x.shape[0]] = self.random_transform(x[i])
            x = ax
        broadcast_shape = [1, 1, 1]
        broadcast_shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=(0, self.row_axis, self.col_axis)), broadcast_shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=(0, self.row_axis, self.col_axis)), broadcast_shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            n = len(x)
            u, s, _ = np.linalg.svd(np.reshape(x, (n, -1)).T, full_matrices=False)
            s_inv = np.sqrt(n) / (s + self.zca_epsilon)
            self.zca_whitening_matrix = (u * s_inv).dot(u.T)
