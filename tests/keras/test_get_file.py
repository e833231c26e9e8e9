"""``tf.keras.utils.get_file``: Keras 3's cache, hashes, archives and download errors, on ``file://`` URLs
(no network needed), and ``fashion_mnist``/``mnist`` reading files laid in that cache."""
import gzip
import hashlib
import io
import os
import tarfile
import zipfile

import numpy as np
import pytest

import engine as tf


@pytest.fixture
def source(tmp_path):
    folder = tmp_path / "server"
    folder.mkdir()
    (folder / "data.csv").write_text("a,b\n1,2\n")
    with tarfile.open(folder / "pack.tar.gz", "w:gz") as tar:
        data = b"hello"
        info = tarfile.TarInfo("inner/hello.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with zipfile.ZipFile(folder / "pack.zip", "w") as z:
        z.writestr("z.txt", "zipped")
    return folder


def test_downloads_once_into_the_cache(source, tmp_path, capsys):
    cache = tmp_path / "cache"
    url = (source / "data.csv").as_uri()
    path = tf.keras.utils.get_file("data.csv", url, cache_dir=str(cache))
    assert path == str(cache / "datasets" / "data.csv") and open(path).read() == "a,b\n1,2\n"
    assert capsys.readouterr().out == f"Downloading data from {url}\n"
    (source / "data.csv").write_text("changed")
    assert tf.keras.utils.get_file("data.csv", url, cache_dir=str(cache)) == path   # cached: not fetched again
    assert open(path).read() == "a,b\n1,2\n" and capsys.readouterr().out == ""
    tf.keras.utils.get_file("data.csv", url, cache_dir=str(cache), force_download=True)
    assert open(path).read() == "changed"


def test_hashes(source, tmp_path):
    cache, url = str(tmp_path / "c"), (source / "data.csv").as_uri()
    good = hashlib.sha256(b"a,b\n1,2\n").hexdigest()
    tf.keras.utils.get_file("data.csv", url, cache_dir=cache, file_hash=good)
    with pytest.raises(ValueError, match="Incomplete or corrupted file detected. The auto file hash does not match"):
        tf.keras.utils.get_file("other.csv", url, cache_dir=cache, file_hash="0" * 64)
    assert tf.keras.utils.validate_file(os.path.join(cache, "datasets", "data.csv"), good)
    assert tf.keras.utils.validate_file(os.path.join(cache, "datasets", "data.csv"),
                                        hashlib.md5(b"a,b\n1,2\n").hexdigest())


def test_archives_are_extracted(source, tmp_path):
    cache = str(tmp_path / "c")
    folder = tf.keras.utils.get_file("pack.tar.gz", (source / "pack.tar.gz").as_uri(), cache_dir=cache, extract=True)
    assert folder == os.path.join(cache, "datasets", "pack_extracted")
    assert open(os.path.join(folder, "inner", "hello.txt")).read() == "hello"
    folder = tf.keras.utils.get_file(origin=(source / "pack.zip").as_uri(), cache_dir=cache, extract=True)
    assert folder == os.path.join(cache, "datasets", "pack.zip")
    assert open(os.path.join(folder, "z.txt")).read() == "zipped"


def test_errors(tmp_path):
    missing = (tmp_path / "nothing.csv").as_uri()
    with pytest.raises(Exception, match=f"^URL fetch failure on {missing}: ") as caught:
        tf.keras.utils.get_file("nothing.csv", missing, cache_dir=str(tmp_path / "c"))
    assert type(caught.value) is Exception
    assert not os.path.exists(tmp_path / "c" / "datasets" / "nothing.csv")      # no partial file left
    with pytest.raises(ValueError, match='Please specify the "origin" argument'):
        tf.keras.utils.get_file("x")
    with pytest.raises(ValueError, match="Paths are no longer accepted as the `fname` argument"):
        tf.keras.utils.get_file("a/b.csv", missing)


def test_fashion_mnist_reads_the_idx_files_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    folder = tmp_path / "home" / "datasets" / "fashion-mnist"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for split, n in (("train", 3), ("t10k", 2)):
        labels, images = rng.integers(0, 10, n, dtype=np.uint8), rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        (folder / f"{split}-labels-idx1-ubyte.gz").write_bytes(gzip.compress(bytes(8) + labels.tobytes()))
        (folder / f"{split}-images-idx3-ubyte.gz").write_bytes(gzip.compress(bytes(16) + images.tobytes()))
        if split == "train":
            expected = (images, labels)
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.fashion_mnist.load_data()
    np.testing.assert_array_equal(x_train, expected[0])
    np.testing.assert_array_equal(y_train, expected[1])
    assert x_test.shape == (2, 28, 28) and y_test.dtype == np.uint8
