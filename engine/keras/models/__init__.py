"""``tf.keras.models``: ``Model`` (subclassed or functional) and ``Sequential``."""
from .functional import Functional  # noqa: F401
from .model import Model  # noqa: F401
from .sequential import Sequential  # noqa: F401
from ..saving import load_model, model_from_config  # noqa: F401

__all__ = ["Model", "Functional", "Sequential", "load_model", "model_from_config"]


def clone_model(model, input_tensors=None, clone_function=None):
    """A new model of the same architecture (from ``get_config``), with new weights (as Keras)."""
    if input_tensors is not None or clone_function is not None:
        raise NotImplementedError("clone_model: input_tensors / clone_function are not implemented in the engine.")
    return type(model).from_config(model.get_config())
