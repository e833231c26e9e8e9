"""``tf.keras.optimizers.schedules``: a learning rate that depends on the step.

A schedule is a callable ``schedule(step) -> learning rate``. The optimizer calls
it with its ``iterations`` variable on every step, so inside a ``tf.function`` the
rate is computed in the graph from the current step (no retracing).
"""
from ...framework import dtypes
from ...framework.tensor import convert_to_tensor
from ...ops import array_ops, math_ops

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay"]


class LearningRateSchedule:
    """Base class: implement ``__call__(step)``."""

    def __call__(self, step):
        raise NotImplementedError

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent floored if ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        initial = convert_to_tensor(self.initial_learning_rate)
        if not initial.dtype.is_floating:
            initial = math_ops.cast(initial, dtypes.float32)
        dtype = initial.dtype
        p = math_ops.divide(math_ops.cast(step, dtype), convert_to_tensor(self.decay_steps, dtype=dtype))
        if self.staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(initial, math_ops.pow(convert_to_tensor(self.decay_rate, dtype=dtype), p))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` while ``step <= boundaries[0]``, ``values[1]`` up to ``boundaries[1]``, ... ``values[-1]`` after.

    Computed as Keras does, without branches: the sum over the intervals of
    ``value * (step in interval)``, so it is one straight-line graph.
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError(f"The length of boundaries should be 1 less than the length of values. Received: "
                             f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length "
                             f"{len(values)}.")
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        step = convert_to_tensor(step)
        boundaries = [math_ops.cast(b, step.dtype) if hasattr(b, "dtype") else convert_to_tensor(b, dtype=step.dtype)
                      for b in self.boundaries]
        values = [convert_to_tensor(v) for v in self.values]
        dtype = values[0].dtype
        values = [v if v.dtype == dtype else math_ops.cast(v, dtype) for v in values]

        def indicator(condition):
            return math_ops.cast(condition, dtype)
        result = array_ops.zeros([], dtype=dtype)
        result = result + indicator(math_ops.less_equal(step, boundaries[0])) * values[0]
        result = result + indicator(math_ops.greater(step, boundaries[-1])) * values[-1]
        for low, high, value in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            inside = math_ops.logical_and(math_ops.greater(step, low), math_ops.less_equal(step, high))
            result = result + indicator(inside) * value
        return result

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}
