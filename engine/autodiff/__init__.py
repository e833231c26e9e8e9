"""``tf.autodiff``: reverse mode (``GradientTape``) and forward mode (``ForwardAccumulator``).

Reverse mode is the engine's core (``engine/eager/tape.py``, below the op library:
every op offers itself to the tapes). Forward mode lives here, above the op
library: ``forwardprop.py`` pushes tangents through each op with the ops
themselves (a linear op's JVP is the op applied to the tangents).
"""
from ..eager.tape import GradientTape  # noqa: F401
from .forwardprop import ForwardAccumulator  # noqa: F401

__all__ = ["ForwardAccumulator", "GradientTape"]
