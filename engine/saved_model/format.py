"""The SavedModel on disk: file names, format version, and how structures become JSON.

A SavedModel directory (described with an example in ``docs/saved_model_format.md``)::

    export_dir/
        saved_model.json           graphs, signatures, the object tree, variable metadata
        variables/variables.npz    the variable values (the checkpoint)

This module holds what the writer (``save.py``) and the reader (``load.py``)
must agree on, and nothing else:

* the names of the files and the format version;
* *checkpoint keys*: a variable is named by its path of attributes from the
  saved object (``layer/w``), not by its ``tf.Variable`` name, which need not be
  unique. TF escapes ``.`` and ``/`` inside one path component the same way;
* *structured values*: the nests of ``TensorSpec`` s and Python values that
  a function was traced with (its ``structured_input_signature``) and the nest
  of tensors it returned, written as tagged JSON, like TF's ``StructuredValue``
  protocol buffer: ``{"tuple": [...]}``, ``{"list": [...]}``, ``{"dict": {...}}``,
  ``{"tensor_spec": {...}}``, ``{"value": 3}``, ``null`` for ``None``, and
  ``{"output": i}`` for the i-th output tensor of a function.
"""
import os

from ..framework import dtypes as _dtypes
from ..framework.tensor_shape import TensorShape, as_shape
from ..framework.tensor_spec import TensorSpec
from ..ops.ragged.ragged_tensor import RaggedTensorSpec

__all__ = ["FORMAT", "VERSION", "SAVED_MODEL_FILENAME_JSON", "VARIABLES_DIRECTORY", "VARIABLES_FILENAME",
           "ASSETS_DIRECTORY", "SERVING", "TRAINING", "GPU", "TPU", "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
           "saved_model_path", "variables_path", "checkpoint_key", "encode_structure", "decode_structure",
           "encode_spec", "decode_spec", "encode_shape", "decode_shape"]

FORMAT = "engine.SavedModel"        # the "format" field of saved_model.json
VERSION = 1                         # the format version this engine writes and reads
SAVED_MODEL_FILENAME_JSON = "saved_model.json"   # TF: saved_model.pb
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"    # the checkpoint's prefix: variables/variables.npz
ASSETS_DIRECTORY = "assets"         # TF's name; the engine writes no assets

# tags of a MetaGraph (TF's tag_constants) and the default signature key (TF's signature_constants)
SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"


def saved_model_path(export_dir):
    return os.path.join(os.fspath(export_dir), SAVED_MODEL_FILENAME_JSON)


def variables_path(export_dir):
    return os.path.join(os.fspath(export_dir), VARIABLES_DIRECTORY, VARIABLES_FILENAME + ".npz")


def checkpoint_key(path):
    """``("layer", "w")`` -> ``"layer/w"``; inside a component ``.`` becomes ``..`` and ``/`` becomes ``.S``."""
    return "/".join(str(part).replace(".", "..").replace("/", ".S") for part in path)


# --- shapes and specs ------------------------------------------------------------------------
def encode_shape(shape):
    """A TensorShape as JSON: a list with ``null`` for unknown dimensions, or ``null`` for unknown rank."""
    shape = as_shape(shape)
    return None if shape.rank is None else list(shape)


def decode_shape(doc):
    return TensorShape(None) if doc is None else TensorShape(doc)


def encode_spec(spec):
    return {"name": spec.name, "dtype": spec.dtype.name, "shape": encode_shape(spec.shape)}


def decode_spec(doc):
    return TensorSpec(decode_shape(doc["shape"]), _dtypes.as_dtype(doc["dtype"]), doc.get("name"))


def encode_ragged_spec(spec):
    """A ``RaggedTensorSpec`` (a ragged argument of a signature) as JSON."""
    return {"shape": encode_shape(spec.shape), "dtype": spec.dtype.name, "ragged_rank": spec.ragged_rank,
            "row_splits_dtype": spec.row_splits_dtype.name}


def decode_ragged_spec(doc):
    return RaggedTensorSpec(decode_shape(doc["shape"]), _dtypes.as_dtype(doc["dtype"]), doc["ragged_rank"],
                            _dtypes.as_dtype(doc["row_splits_dtype"]))


# --- nested structures ---------------------------------------------------------------------------
def encode_structure(value, encode_leaf=None, where="a structure"):
    """Tagged JSON for a nest of tuples, lists, dicts, TensorSpecs and Python scalars.

    ``encode_leaf(x)`` handles other leaves (the writer turns output tensors into
    ``{"output": i}``); it returns ``None`` for leaves it does not know, which are
    an error: a live Python object cannot be written to a file.
    """
    if value is None:
        return None
    if isinstance(value, TensorSpec):
        return {"tensor_spec": encode_spec(value)}
    if isinstance(value, RaggedTensorSpec):
        return {"ragged_tensor_spec": encode_ragged_spec(value)}
    if isinstance(value, (bool, int, float, str)):
        return {"value": value}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError(f"Cannot save {where}: dictionary keys must be strings, got {list(value)!r}.")
        return {"dict": {k: encode_structure(v, encode_leaf, where) for k, v in value.items()}}
    if isinstance(value, tuple):   # namedtuples are saved as plain tuples
        return {"tuple": [encode_structure(v, encode_leaf, where) for v in value]}
    if isinstance(value, list):
        return {"list": [encode_structure(v, encode_leaf, where) for v in value]}
    encoded = encode_leaf(value) if encode_leaf is not None else None
    if encoded is None:
        raise ValueError(f"Cannot save {where}: it contains {value!r} (a {type(value).__name__}). A SavedModel "
                         f"stores tensors, TensorSpecs, Python scalars and strings, and tuples, lists and dicts "
                         f"of these.")
    return encoded


def decode_structure(doc, decode_leaf=None):
    """The inverse of :func:`encode_structure`; ``decode_leaf`` turns ``{"output": i}`` back into a tensor."""
    if doc is None:
        return None
    (kind, v), = doc.items()
    if kind == "tensor_spec":
        return decode_spec(v)
    if kind == "ragged_tensor_spec":
        return decode_ragged_spec(v)
    if kind == "value":
        return v
    if kind == "dict":
        return {k: decode_structure(x, decode_leaf) for k, x in v.items()}
    if kind == "tuple":
        return tuple(decode_structure(x, decode_leaf) for x in v)
    if kind == "list":
        return [decode_structure(x, decode_leaf) for x in v]
    if decode_leaf is not None:
        return decode_leaf(kind, v)
    raise ValueError(f"Bad structured value in a SavedModel: unknown kind {kind!r}.")
