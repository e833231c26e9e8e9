"""``tf.keras.preprocessing.image.ImageDataGenerator`` and the image helpers, against Keras 3.

The goldens (image_data_generator_goldens.json) come from TF 2.21 / Keras 3.15's own
``ImageDataGenerator`` (``keras.src.legacy.preprocessing.image``, resampling with SciPy), recorded by
record_image_data_generator_goldens.py on the cases of image_data_generator_cases.py: a tiny tree of
PNG files, shapes, dtypes, labels, ``class_indices``, rescaled and augmented pixel values (same seeds,
so the same NumPy random draws), the printed ``Found N images belonging to K classes.`` and error messages.
"""
import json
import os
import sys

import numpy as np
import pytest

import engine as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from image_data_generator_cases import CASES, make_image_tree, run  # noqa: E402

P = tf.keras.preprocessing.image
GOLDENS = json.load(open(os.path.join(os.path.dirname(__file__), "image_data_generator_goldens.json")))["cases"]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("idg") / "images")
    make_image_tree(path)
    return path


def assert_same(got, want, where="result"):
    """Equal structures; arrays with the same dtype and shape and values equal to 1e-4 (float32 resampling
    in another order of operations than SciPy's)."""
    if isinstance(want, dict) and set(want) == {"dtype", "shape", "values"}:
        assert isinstance(got, dict) and got.get("dtype") == want["dtype"], (where, got, want["dtype"])
        assert got["shape"] == want["shape"], (where, got["shape"], want["shape"])
        np.testing.assert_allclose(np.array(got["values"], dtype=float), np.array(want["values"], dtype=float),
                                   rtol=1e-5, atol=1e-4, err_msg=where)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), (where, got, want)
        for key in want:
            assert_same(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-6, abs=1e-9), (where, got, want)
    else:
        assert got == want, (where, got, want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_keras(name, root):
    got, want = run(CASES[name], P, root), GOLDENS[name]
    assert got["printed"] == want["printed"]
    if "error" in want:
        assert got.get("error") == want["error"]
    else:
        assert "error" not in got, got.get("error")
        assert_same(got["result"], want["result"])


def test_goldens_cover_every_case():
    assert sorted(GOLDENS) == sorted(CASES)


def test_guide_generator(root, capsys):
    """The tf.data guide's use: rescale=1/255 and rotation_range=20, flow_from_directory with its defaults
    (256x256, batch 32, categorical): float32 images in [0, 1] and one-hot float32 labels."""
    img_gen = P.ImageDataGenerator(rescale=1. / 255, rotation_range=20)
    it = img_gen.flow_from_directory(root)
    assert capsys.readouterr().out == "Found 10 images belonging to 3 classes.\n"
    images, labels = next(it)
    assert (images.dtype, images.shape) == (np.float32, (10, 256, 256, 3))
    assert (labels.dtype, labels.shape) == (np.float32, (10, 3))
    assert 0.0 <= images.min() and images.max() <= 1.0
    np.testing.assert_array_equal(labels.sum(axis=1), np.ones(10))
    assert it.class_indices == {"birds": 0, "cats": 1, "dogs": 2}
    assert (it.samples, len(it), it.batch_size, it.target_size) == (10, 1, 32, (256, 256))
    ds = tf.data.Dataset.from_generator(lambda: img_gen.flow_from_directory(root), output_types=(tf.float32,
                                        tf.float32), output_shapes=([None, 256, 256, 3], [None, 3]))
    for images, labels in ds.take(1):
        assert images.shape == (10, 256, 256, 3) and labels.shape == (10, 3)


def test_seeded_flow_is_deterministic():
    x = np.random.RandomState(0).uniform(0, 255, (5, 4, 4, 3)).astype(np.float32)
    gen = P.ImageDataGenerator(rotation_range=30, width_shift_range=0.2, horizontal_flip=True)
    first = [next(gen.flow(x, np.arange(5), batch_size=2, seed=3)) for _ in range(2)]
    second = [next(gen.flow(x, np.arange(5), batch_size=2, seed=3)) for _ in range(2)]
    for (a, la), (b, lb) in zip(first, second):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(la, lb)


def test_flow_loops_over_epochs():
    """After the last (short) batch the iterator starts again: 7 samples, batch 3 -> 3, 3, 1, 3, ..."""
    it = P.ImageDataGenerator().flow(np.zeros((7, 2, 2, 1)), np.arange(7), batch_size=3, shuffle=False)
    assert [next(it)[1].tolist() for _ in range(4)] == [[0, 1, 2], [3, 4, 5], [6], [0, 1, 2]]


def test_module_exports():
    assert tf.keras.preprocessing.image is P
    for name in ("ImageDataGenerator", "DirectoryIterator", "NumpyArrayIterator", "Iterator", "load_img",
                 "img_to_array", "array_to_img", "save_img", "apply_affine_transform", "random_rotation"):
        assert hasattr(P, name), name


def test_save_img_round_trip(tmp_path):
    x = np.arange(2 * 3 * 3, dtype=np.float32).reshape(2, 3, 3) * 10
    path = str(tmp_path / "a.png")
    P.save_img(path, x, scale=False)
    np.testing.assert_array_equal(P.img_to_array(P.load_img(path)), x)


def test_higher_interpolation_orders_are_refused():
    with pytest.raises(NotImplementedError, match="interpolation_order=3"):
        P.apply_affine_transform(np.zeros((3, 3, 1), np.float32), theta=10, row_axis=0, col_axis=1,
                                 channel_axis=2, order=3)
