"""``tf.autodiff``: reverse mode (``GradientTape``) and forward mode (``ForwardAccumulator``)."""
from .eager.forwardprop import ForwardAccumulator  # noqa: F401
from .eager.tape import GradientTape  # noqa: F401

__all__ = ["ForwardAccumulator", "GradientTape"]
