"""``tf.keras.utils.get_file``: download a file once, into a cache folder, and optionally unpack it.

What Keras 3 does, which tutorials rely on: the file goes to ``~/.keras/datasets/<fname>`` (``cache_dir``,
``cache_subdir``; ``$KERAS_HOME`` moves ``~/.keras``; an unwritable home falls back to ``/tmp/.keras``); a
file already there is not downloaded again unless ``force_download`` or its hash differs from
``file_hash``; ``extract=True`` unpacks a tar or zip archive into ``<name>_extracted`` (the archive keeps
its name when ``fname`` has an extension) and returns that folder. The program is told
``Downloading data from <url>`` first; a failed download raises ``Exception("URL fetch failure on <url>:
<errno> -- <reason>")`` and leaves no partial file behind.
"""
import hashlib
import os
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile

__all__ = ["get_file", "validate_file"]


def _keras_home():
    return os.path.expanduser(os.environ.get("KERAS_HOME", os.path.join("~", ".keras")))


def _file_digest(path, algorithm):
    digest = hashlib.sha256() if algorithm == "sha256" else hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
    """True if the file's hash is ``file_hash`` (``auto``: sha256 for a 64-digit hash, else md5)."""
    if algorithm == "auto":
        algorithm = "sha256" if len(str(file_hash)) == 64 else "md5"
    return _file_digest(fpath, algorithm) == str(file_hash)


def _extract(archive, folder, archive_format):
    formats = ("tar", "zip") if archive_format == "auto" else \
        (archive_format,) if isinstance(archive_format, str) else tuple(archive_format or ())
    for kind in formats:
        if kind == "tar" and tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tar:
                tar.extractall(folder, filter="data")
            return True
        if kind == "zip" and zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as z:
                z.extractall(folder)
            return True
    return False


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None, force_download=False):
    """The local path of ``origin`` (a URL), downloaded into the cache if it is not there yet (see above)."""
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(cache_dir) if cache_dir is not None else _keras_home()
    if not os.access(base, os.W_OK) and not (not os.path.exists(base) and os.access(os.path.dirname(base) or ".",
                                                                                     os.W_OK)):
        base = os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(), ".keras")
    folder = os.path.join(base, cache_subdir)
    os.makedirs(folder, exist_ok=True)
    given = os.fspath(fname) if fname is not None else None
    name = given or os.path.basename(urllib.parse.urlsplit(origin).path)
    if not name:
        raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'.Please specify the "
                         f"`fname` argument.")
    if given and os.sep in given:
        raise ValueError(f"Paths are no longer accepted as the `fname` argument. To specify the file's parent "
                         f"directory, use the `cache_dir` argument. Received: fname={given}")
    unpack = extract or untar
    target, unpacked = os.path.join(folder, name), None
    if unpack:
        if given and "." in name:
            stem = name[:name.find(".")]
            unpacked = os.path.join(folder, f"{stem}_extracted")
        else:
            target, unpacked = os.path.join(folder, f"{name}_archive"), os.path.join(folder, name)
    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and not validate_file(target, file_hash, hash_algorithm):
        print(f"A local file was found, but it seems to be incomplete or outdated because the {hash_algorithm} "
              f"file hash does not match the original value of {file_hash} so we will re-download the data.")
        download = True
    if download:
        print(f"Downloading data from {origin}")
        try:
            try:
                urllib.request.urlretrieve(origin, target)
            except urllib.error.HTTPError as e:
                raise Exception(f"URL fetch failure on {origin}: {e.code} -- {e.msg}") from None
            except urllib.error.URLError as e:
                raise Exception(f"URL fetch failure on {origin}: {e.errno} -- {e.reason}") from None
        except BaseException:
            if os.path.exists(target):
                os.remove(target)
            raise
        if file_hash is not None and not validate_file(target, file_hash, hash_algorithm):
            raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} file hash does not "
                             f"match the provided value of {file_hash}.")
    if unpack:
        if not _extract(target, unpacked, "tar" if untar else archive_format):
            warnings.warn("Could not extract archive.", stacklevel=2)
        return unpacked
    return target
