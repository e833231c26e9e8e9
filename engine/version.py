"""``tf.version``: which TensorFlow this is.

The engine follows TensorFlow 2.21's behaviour, so it reports TF's release number,
as programs that check ``tf.__version__`` expect. What is the engine's own is said
where it differs: ``GIT_VERSION`` names the engine, and ``GRAPH_DEF_VERSION`` is the
version of the engine's GraphDef format (TF 2.21's protobuf GraphDef is version 2474).
"""
from .framework.graph_io import GRAPH_DEF_VERSION

__all__ = ["VERSION", "GIT_VERSION", "COMPILER_VERSION", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
           "GRAPH_DEF_VERSION_MIN_PRODUCER"]

VERSION = "2.21.0"
GIT_VERSION = "engine (TensorFlow 2.21.0 semantics on NumPy)"
COMPILER_VERSION = "none (pure Python)"
GRAPH_DEF_VERSION_MIN_CONSUMER = GRAPH_DEF_VERSION
GRAPH_DEF_VERSION_MIN_PRODUCER = GRAPH_DEF_VERSION
