"""Cases of ``tf.keras.preprocessing.image`` (``ImageDataGenerator``...), shared by the recorder
(``record_image_data_generator_goldens.py``, run under TF 2.21 / Keras 3, with SciPy on the path for
Keras' resampling) and ``test_image_data_generator.py`` (the engine).

Every case is ``fn(P, root) -> JSON-able``; ``P`` is ``tf.keras.preprocessing.image``, ``root`` a
directory made by ``make_image_tree`` (PNG files: lossless, so both read the same pixels).
What a case prints (``Found N images belonging to K classes.``) is recorded with its result.
"""
import contextlib
import io
import os

import numpy as np

CLASSES = ("cats", "dogs", "birds")


def make_image_tree(root):
    """``root/{cats,dogs,birds}/img*.png`` (2, 3, 4 RGB images of sizes 5x7 ... 8x9), a grayscale
    ``cats/gray.png`` and a ``cats/notes.txt`` that is not an image."""
    from PIL import Image
    rng = np.random.RandomState(0)
    for ci, cls in enumerate(CLASSES):
        os.makedirs(os.path.join(root, cls), exist_ok=True)
        for k in range(ci + 2):
            a = rng.randint(0, 256, (5 + k, 7 + ci, 3)).astype(np.uint8)
            Image.fromarray(a).save(os.path.join(root, cls, f"img{k}.png"))
    Image.fromarray(rng.randint(0, 256, (6, 6)).astype(np.uint8)).save(os.path.join(root, "cats", "gray.png"))
    with open(os.path.join(root, "cats", "notes.txt"), "w") as f:
        f.write("not an image")


def plain(value):
    """Arrays as ``{"dtype", "shape", "values"}``, tuples/lists/dicts kept, NumPy scalars as Python's."""
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "values": value.ravel().tolist()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def run(fn, P, root):
    """``{"printed": ..., "result": ...}`` or ``{"printed": ..., "error": [class name, message]}``."""
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            result = fn(P, root)
        return {"printed": buf.getvalue(), "result": plain(result)}
    except Exception as e:   # noqa: BLE001 - the error is the result
        return {"printed": buf.getvalue(), "error": [type(e).__name__, str(e)]}


def _batches(it, n):
    return [list(b) if isinstance(b, tuple) else [b] for b in (next(it) for _ in range(n))]


def _directory(gen_kw, flow_kw, n=2):
    def case(P, root):
        it = P.ImageDataGenerator(**gen_kw).flow_from_directory(root, **flow_kw)
        return {"class_indices": it.class_indices, "samples": it.samples, "classes": it.classes,
                "filenames": it.filenames, "num_classes": it.num_classes, "len": len(it),
                "image_shape": list(it.image_shape), "batches": _batches(it, n)}
    return case


def _flow(gen_kw, flow_kw, n=3, labels=True, fit=False):
    def case(P, root):
        x = np.random.RandomState(42).uniform(0, 255, (7, 6, 5, 3)).astype(np.float32)
        gen = P.ImageDataGenerator(**gen_kw)
        if fit:
            gen.fit(x)
        it = gen.flow(x, np.arange(7) if labels else None, **flow_kw)
        batches = _batches(it, n)
        item = it[1]
        return {"len": len(it), "batches": batches, "item": list(item) if isinstance(item, tuple) else [item]}
    return case


def _settings(P, root):
    gen = P.ImageDataGenerator(rescale=1. / 255, rotation_range=20, width_shift_range=0.1, height_shift_range=0.2,
                               horizontal_flip=True, validation_split=0.2, zoom_range=0.3)
    names = ("rescale", "rotation_range", "width_shift_range", "height_shift_range", "horizontal_flip",
             "vertical_flip", "zoom_range", "shear_range", "channel_shift_range", "fill_mode", "cval",
             "_validation_split", "data_format", "channel_axis", "row_axis", "col_axis", "dtype",
             "interpolation_order", "featurewise_center", "samplewise_center", "brightness_range", "mean", "std")
    return {name: getattr(gen, name) for name in names}


def _random_transform(P, root):
    gen = P.ImageDataGenerator(rotation_range=20, width_shift_range=[1, 2], height_shift_range=0.1,
                               zoom_range=[0.8, 1.2], horizontal_flip=True, channel_shift_range=5.0,
                               brightness_range=(0.5, 1.5))
    return gen.get_random_transform((8, 8, 3), seed=3)


def _load(P, root):
    gray = os.path.join(root, "cats", "gray.png")
    rgb = os.path.join(root, "dogs", "img1.png")
    return [P.img_to_array(P.load_img(gray)),
            P.img_to_array(P.load_img(gray, color_mode="grayscale", target_size=(3, 4))),
            P.img_to_array(P.load_img(rgb, color_mode="rgba")).shape,
            P.img_to_array(P.load_img(rgb), data_format="channels_first").shape,
            P.img_to_array(P.load_img(rgb, target_size=(4, 5), interpolation="bilinear"))]


def _affine(P, root):
    x = np.arange(48, dtype=np.float32).reshape(4, 4, 3)
    return [P.apply_affine_transform(x, theta=33, tx=0.7, ty=-1.2, shear=5, zx=1.1, zy=0.9, row_axis=0,
                                     col_axis=1, channel_axis=2),
            P.apply_affine_transform(x.reshape(3, 4, 4), theta=-50, fill_mode="constant", cval=-1.0, row_axis=1,
                                     col_axis=2, channel_axis=0),
            P.apply_affine_transform(x, tx=1.5, fill_mode="wrap", row_axis=0, col_axis=1, channel_axis=2),
            P.apply_affine_transform(x, theta=0)]


CASES = {
    # the guide's generator: rescale + rotation; default class_mode "categorical" (one-hot labels)
    "directory_rescale_rotation": _directory(dict(rescale=1. / 255, rotation_range=20),
                                             dict(target_size=(4, 4), batch_size=3, seed=7)),
    "directory_rescale": _directory(dict(rescale=1. / 255), dict(target_size=(4, 4), batch_size=4, seed=1)),
    "directory_sparse_flip": _directory(dict(rescale=1. / 255, horizontal_flip=True),
                                        dict(target_size=(4, 3), batch_size=3, class_mode="sparse", seed=3)),
    "directory_binary_unshuffled": _directory(dict(), dict(target_size=(3, 3), batch_size=5, class_mode="binary",
                                                           shuffle=False), n=3),
    "directory_shifts": _directory(dict(width_shift_range=0.2, height_shift_range=0.3),
                                   dict(target_size=(4, 4), batch_size=4, seed=2)),
    "directory_all_augmentations": _directory(
        dict(rotation_range=30, width_shift_range=0.1, height_shift_range=0.1, shear_range=10, zoom_range=0.2,
             horizontal_flip=True, vertical_flip=True, channel_shift_range=10.0),
        dict(target_size=(4, 4), batch_size=4, seed=5)),
    "directory_fill_constant": _directory(dict(rotation_range=40, fill_mode="constant", cval=7.0),
                                          dict(target_size=(4, 4), batch_size=4, seed=11), n=1),
    "directory_fill_reflect": _directory(dict(rotation_range=40, width_shift_range=0.3, fill_mode="reflect"),
                                         dict(target_size=(4, 4), batch_size=4, seed=12), n=1),
    "directory_fill_wrap": _directory(dict(width_shift_range=0.3, height_shift_range=2, fill_mode="wrap"),
                                      dict(target_size=(4, 4), batch_size=4, seed=13), n=1),
    "directory_order0": _directory(dict(rotation_range=40, interpolation_order=0),
                                   dict(target_size=(4, 4), batch_size=4, seed=14), n=1),
    "directory_grayscale_input": _directory(dict(rescale=2.0), dict(target_size=(3, 3), color_mode="grayscale",
                                                                    class_mode="input", batch_size=4,
                                                                    shuffle=False), n=1),
    "directory_rgba_no_labels": _directory(dict(), dict(target_size=(3, 3), color_mode="rgba", class_mode=None,
                                                        batch_size=4, shuffle=False), n=1),
    "directory_validation": _directory(dict(validation_split=0.5), dict(target_size=(2, 2), batch_size=8,
                                                                        subset="validation", shuffle=False), n=1),
    "directory_training": _directory(dict(validation_split=0.5), dict(target_size=(2, 2), batch_size=8,
                                                                      subset="training", shuffle=False), n=1),
    "directory_classes": _directory(dict(), dict(target_size=(2, 2), classes=["dogs", "cats"], batch_size=8,
                                                 shuffle=False), n=1),
    "directory_keep_aspect_ratio": _directory(dict(), dict(target_size=(3, 5), interpolation="bilinear",
                                                           keep_aspect_ratio=True, batch_size=4, shuffle=False), n=1),
    "flow_rescale": _flow(dict(rescale=0.5), dict(batch_size=3, seed=4)),
    "flow_augment": _flow(dict(rotation_range=25, horizontal_flip=True, zoom_range=0.1), dict(batch_size=2, seed=9)),
    "flow_samplewise_no_labels": _flow(dict(samplewise_center=True, samplewise_std_normalization=True),
                                       dict(batch_size=4, shuffle=False), labels=False),
    "flow_featurewise_fit": _flow(dict(featurewise_center=True, featurewise_std_normalization=True),
                                  dict(batch_size=4, shuffle=False), fit=True),
    "flow_brightness": _flow(dict(brightness_range=(0.5, 1.5)), dict(batch_size=4, seed=3), n=1),
    "settings": _settings,
    "random_transform": _random_transform,
    "load_img": _load,
    "apply_affine_transform": _affine,
    "error_flow_rank3": lambda P, root: P.ImageDataGenerator().flow(np.zeros((2, 3, 3))),
    "error_flow_lengths": lambda P, root: P.ImageDataGenerator().flow(np.zeros((2, 3, 3, 3)), np.zeros(3)),
    "error_validation_split": lambda P, root: P.ImageDataGenerator(validation_split=1.5),
    "error_zoom_range": lambda P, root: P.ImageDataGenerator(zoom_range=(1, 2, 3)),
    "error_color_mode": lambda P, root: P.ImageDataGenerator().flow_from_directory(root, color_mode="cmyk"),
    "error_subset": lambda P, root: P.ImageDataGenerator(validation_split=0.5).flow_from_directory(
        root, subset="test"),
    "error_getitem": lambda P, root: P.ImageDataGenerator().flow(np.zeros((2, 3, 3, 3)), batch_size=1)[5],
}
