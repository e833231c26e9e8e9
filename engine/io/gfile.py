"""``tf.io.gfile``: TensorFlow's file API (local files only here).

TF routes these through its filesystem layer so the same code reads ``gs://`` or ``hdfs://`` paths;
the engine supports local paths, on Python's ``os``/``glob``/``shutil``, with TF's error classes
(``NotFoundError`` for a missing file, ``FailedPreconditionError`` for a directory where a file is
expected...). ``GFile`` is a file object (``read``, ``write``, ``readline``, iteration, ``with``), opened
lazily as TF's is. ``glob`` results are sorted here (TF's order is its filesystem's).
"""
import glob as _glob
import os
import shutil

from ..framework import errors
from .file_io import os_error

__all__ = ["GFile", "exists", "glob", "isdir", "listdir", "makedirs", "mkdir", "remove", "rename", "rmtree",
           "copy", "stat", "walk", "join"]


def _path(path):
    if hasattr(path, "numpy"):
        path = path.numpy()
    return os.fsdecode(path)


def exists(path):
    """True if ``path`` (a file or a directory) exists."""
    return os.path.exists(_path(path))


def isdir(path):
    return os.path.isdir(_path(path))


def glob(pattern):
    """The paths matching ``pattern`` (``*``, ``?``, ``[...]``; a list of patterns is allowed), sorted."""
    single = isinstance(pattern, (str, bytes, os.PathLike)) or hasattr(pattern, "numpy")
    patterns = [pattern] if single else list(pattern)
    out = []
    for p in patterns:
        out.extend(_glob.glob(_path(p)))
    return sorted(out)


def listdir(path):
    """The names in directory ``path`` (not full paths), sorted; ``NotFoundError`` if it is not a directory."""
    path = _path(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, "Could not find directory " + path)
    return sorted(os.listdir(path))


def makedirs(path):
    """Create ``path`` and its missing parents (no error if it exists)."""
    try:
        os.makedirs(_path(path), exist_ok=True)
    except OSError as e:
        raise os_error(e, _path(path)) from None


def mkdir(path):
    path = _path(path)
    if os.path.exists(path):
        raise errors.AlreadyExistsError(None, None, f"{path}; File exists")
    try:
        os.mkdir(path)
    except OSError as e:
        raise os_error(e, path) from None


def remove(path):
    try:
        os.remove(_path(path))
    except OSError as e:
        raise os_error(e, _path(path)) from None


def rmtree(path):
    path = _path(path)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory")
    shutil.rmtree(path)


def rename(src, dst, overwrite=False):
    src, dst = _path(src), _path(dst)
    if os.path.exists(dst) and not overwrite:
        raise errors.AlreadyExistsError(None, None, f"file already exists: {dst}")
    try:
        os.replace(src, dst)
    except OSError as e:
        raise os_error(e, src) from None


def copy(src, dst, overwrite=False):
    src, dst = _path(src), _path(dst)
    if os.path.exists(dst) and not overwrite:
        raise errors.AlreadyExistsError(None, None, f"file already exists: {dst}")
    try:
        shutil.copyfile(src, dst)
    except OSError as e:
        raise os_error(e, src) from None


class _Stat:
    def __init__(self, st, is_directory):
        self.length = st.st_size
        self.mtime_nsec = st.st_mtime_ns
        self.is_directory = is_directory


def stat(path):
    path = _path(path)
    try:
        return _Stat(os.stat(path), os.path.isdir(path))
    except OSError as e:
        raise os_error(e, path) from None


def walk(top, topdown=True, onerror=None):
    """``(dirname, subdirs, files)`` for every directory under ``top``, as ``os.walk``."""
    yield from os.walk(_path(top), topdown=topdown, onerror=onerror)


def join(path, *paths):
    return os.path.join(_path(path), *[_path(p) for p in paths])


class GFile:
    """``tf.io.gfile.GFile(name, mode="r")``: a file object; text modes read and write ``str``, "b" modes bytes.

    The file is opened on first use (TF's ``GFile`` is lazy too), so a missing file fails at ``read()``
    with ``NotFoundError``.
    """

    def __init__(self, name, mode="r"):
        self._name = _path(name)
        self._mode = mode
        self._file = None
        if mode.replace("b", "") not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")

    @property
    def name(self):
        return self._name

    @property
    def mode(self):
        return self._mode

    def _f(self):
        if self._file is None:
            try:
                if "b" in self._mode:
                    self._file = open(self._name, self._mode)
                else:
                    self._file = open(self._name, self._mode, encoding="utf-8", newline="")
            except OSError as e:
                raise os_error(e, self._name) from None
        return self._file

    def read(self, n=-1):
        return self._f().read(n)

    def readline(self):
        return self._f().readline()

    def readlines(self):
        return self._f().readlines()

    def write(self, data):
        f = self._f()
        if "b" not in self._mode and isinstance(data, bytes):
            data = data.decode("utf-8")
        if "b" in self._mode and isinstance(data, str):
            data = data.encode("utf-8")
        f.write(data)

    def seek(self, offset=None, whence=0, position=None):
        return self._f().seek(position if offset is None else offset, whence)

    def tell(self):
        return self._f().tell()

    def size(self):
        return os.path.getsize(self._name)

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __iter__(self):
        return iter(self._f())

    def __next__(self):
        return next(self._f())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

