"""Cases for ``test_image_ops.py``: ``tf.image`` basics the tutorials use, as functions of ``tf``
(real TF 2.21 or the engine) returning JSON values. ``record_image_goldens.py`` runs them under TF into
``image_goldens.json``. Not collected by pytest (no ``test_`` prefix).
"""
import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e).split("\n")[0]]
    return None


def image(shape, dtype="float32", scale=1.0):
    n = int(np.prod(shape))
    values = (np.arange(n) * 7 % 23).reshape(shape) * scale
    return values.astype(dtype)


def out(t):
    return {"dtype": t.dtype.name, "shape": list(t.shape), "value": np.asarray(t.numpy()).tolist()}


@case
def resize_bilinear(tf):
    x = image((1, 4, 4, 2))
    return {"up": out(tf.image.resize(x, [6, 6])), "down": out(tf.image.resize(x, [2, 3])),
            "mixed": out(tf.image.resize(x, [3, 5], method="bilinear")),
            "rank3": out(tf.image.resize(x[0], [5, 3])),
            "uint8": out(tf.image.resize(image((3, 3, 1), "uint8"), [4, 4])),
            "method_enum": out(tf.image.resize(x, [2, 2], method=tf.image.ResizeMethod.BILINEAR))}


@case
def resize_nearest(tf):
    x = image((1, 4, 4, 1))
    return {"up": out(tf.image.resize(x, [6, 6], method="nearest")),
            "down": out(tf.image.resize(x, [2, 3], method="nearest")),
            "uint8": out(tf.image.resize(image((3, 3, 1), "uint8"), [5, 2], method="nearest")),
            "int32": out(tf.image.resize(image((1, 2, 3, 1), "int32"), [3, 4], method="nearest"))}


@case
def resize_gradients(tf):
    x = tf.constant(image((1, 3, 4, 2)))
    w = tf.constant(image((1, 5, 3, 2), scale=0.1) + 0.5)
    grads = {}
    for method in ("bilinear", "nearest"):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.image.resize(x, [5, 3], method=method) * w)
        grads[method] = tape.gradient(y, x).numpy().tolist()
    return grads


@case
def resize_errors(tf):
    x = image((1, 4, 4, 1))
    return {"rank2": error(lambda: tf.image.resize(x[0, :, :, 0], [2, 2])),
            "size_rank": error(lambda: tf.image.resize(x, [2])),
            "method": error(lambda: tf.image.resize(x, [2, 2], method="cubic_x"))}


@case
def convert_image_dtype(tf):
    u8 = image((2, 2, 1), "uint8", 11.0)
    f = np.array([[[0.0], [0.5]], [[1.0], [0.25]]], "float32")
    return {"uint8_to_float": out(tf.image.convert_image_dtype(u8, tf.float32)),
            "float_to_uint8": out(tf.image.convert_image_dtype(f, tf.uint8)),
            "float_to_int32": out(tf.image.convert_image_dtype(f, tf.int32)),
            "uint8_to_int32": out(tf.image.convert_image_dtype(u8, tf.int32)),
            "int32_to_uint8": out(tf.image.convert_image_dtype(tf.constant([[[1 << 30]], [[7]]], tf.int32), tf.uint8)),
            "float_to_float64": out(tf.image.convert_image_dtype(f, tf.float64)),
            "saturate": out(tf.image.convert_image_dtype(np.array([[[1.5], [-0.5]]], "float32"), tf.uint8,
                                                         saturate=True)),
            "same": out(tf.image.convert_image_dtype(f, tf.float32))}


@case
def flips_and_rotations(tf):
    x3 = image((2, 3, 1))
    x4 = image((2, 2, 3, 1))
    return {"flip3": out(tf.image.flip_left_right(x3)), "flip4": out(tf.image.flip_left_right(x4)),
            "flip_up_down": out(tf.image.flip_up_down(x3)),
            "rot1": out(tf.image.rot90(x3)), "rot2": out(tf.image.rot90(x3, k=2)), "rot3": out(tf.image.rot90(x3, 3)),
            "rot_neg": out(tf.image.rot90(x3, k=-1)), "rot4d": out(tf.image.rot90(x4, k=1)),
            "flip_rank2": error(lambda: tf.image.flip_left_right(x3[:, :, 0]))}


@case
def crop_brightness_gray_standardize(tf):
    x = image((4, 6, 3), scale=0.04)
    u8 = image((2, 2, 3), "uint8", 10.0)
    return {"central_crop": out(tf.image.central_crop(x, 0.5)),
            "central_crop_4d": out(tf.image.central_crop(image((1, 5, 5, 1)), 0.6)),
            "central_crop_one": out(tf.image.central_crop(x, 1.0)),
            "central_crop_bad": error(lambda: tf.image.central_crop(x, 0.0)),
            "brightness": out(tf.image.adjust_brightness(x, 0.1)),
            "brightness_uint8": out(tf.image.adjust_brightness(u8, 0.2)),
            "gray": out(tf.image.rgb_to_grayscale(x)), "gray_uint8": out(tf.image.rgb_to_grayscale(u8)),
            "standardize": out(tf.image.per_image_standardization(x)),
            "standardize_uint8": out(tf.image.per_image_standardization(u8)),
            "standardize_constant": out(tf.image.per_image_standardization(np.ones((2, 2, 1), "float32"))),
            "standardize_4d": out(tf.image.per_image_standardization(image((2, 2, 2, 1))))}


def run(tf, name):
    return CASES[name](tf)
