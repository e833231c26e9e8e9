"""``tf.distribute.ReduceOp``: how values from several replicas are combined into one.

Only two reductions exist in ``tf.distribute``: ``SUM`` and ``MEAN`` (a sum
divided by the number of replicas). Gradients are summed; metrics and logged
losses are usually averaged. Strings are accepted wherever a ``ReduceOp`` is
(``strategy.reduce("SUM", ...)``), as in TF.
"""
import enum

from ..variables import VariableAggregation

__all__ = ["ReduceOp"]


class ReduceOp(enum.Enum):
    """Indicates how a set of values should be reduced: ``SUM`` or ``MEAN``."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        """``VariableAggregation.SUM``/``MEAN`` -> ``ReduceOp``; the others have no reduction."""
        mapping = {VariableAggregation.SUM: ReduceOp.SUM, VariableAggregation.MEAN: ReduceOp.MEAN}
        if aggregation not in mapping:
            raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} "
                             f"to`tf.distribute.ReduceOp` type")
        return mapping[aggregation]


def as_reduce_op(reduce_op):
    """Accept ``ReduceOp.SUM``, ``"SUM"`` or ``"sum"``; anything else is TF's ``ValueError``."""
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    if isinstance(reduce_op, str):
        try:
            return ReduceOp(reduce_op.upper())
        except ValueError:
            pass
    raise ValueError(f"{reduce_op!r} is not a valid ReduceOp")
