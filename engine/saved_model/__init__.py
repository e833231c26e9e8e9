"""``tf.saved_model``: a model as files that a server can run without the code that defined it.

A *SavedModel* is three things, written by :func:`save` and read by :func:`load`:

* **graphs**: every traced ``tf.function`` of a ``tf.Module`` as a GraphDef
  (the op types and edges; no Python), with each variable it uses named by a
  key instead of pointing at a live ``tf.Variable``;
* **a checkpoint**: the variables' values, by those keys;
* **signatures**: the serving entry points, each a function from named input
  tensors to a dict of named output tensors.

Serving needs all three: a model server (or a phone, or a C++ binary) has no
Python class to call, so it rebuilds the graphs from data using only its op
registry, fills the variables from the checkpoint, and exposes the signatures
as its API (``model.signatures["serving_default"](x=batch)``).

Usage::

    tf.saved_model.save(module, "/tmp/model")          # signatures=None: the one tf.function with an input_signature
    loaded = tf.saved_model.load("/tmp/model")         # in any process; the module's class is not imported
    loaded.signatures["serving_default"](x=batch)      # {"output_0": <tf.Tensor ...>}
    loaded.f(batch)                                     # the restored tf.function, its outputs as returned

The directory layout and the JSON document are described in
``docs/saved_model_format.md``; the code is ``save.py`` (writing), ``load.py``
(reading) and ``format.py`` (what both agree on).
"""
from .format import (ASSETS_DIRECTORY, DEFAULT_SERVING_SIGNATURE_DEF_KEY, GPU, SAVED_MODEL_FILENAME_JSON,  # noqa: F401
                     SERVING, TPU, TRAINING, VARIABLES_DIRECTORY, VARIABLES_FILENAME)
from .load import LoadOptions, contains_saved_model, load  # noqa: F401
from .save import SaveOptions, save  # noqa: F401

SAVED_MODEL_SCHEMA_VERSION = 1

__all__ = ["save", "load", "SaveOptions", "LoadOptions", "contains_saved_model", "SERVING", "TRAINING", "GPU",
           "TPU", "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "SAVED_MODEL_FILENAME_JSON", "VARIABLES_DIRECTORY",
           "VARIABLES_FILENAME", "ASSETS_DIRECTORY", "SAVED_MODEL_SCHEMA_VERSION"]
