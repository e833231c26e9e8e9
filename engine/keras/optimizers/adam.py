"""``Adam``: per-coordinate step sizes from running moments of the gradient.

Keras 3's formulas at step ``t = iterations + 1``, with slots ``m`` (first
moment) and ``v`` (second moment), both zeros at first::

    alpha = lr * sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t)   # bias correction folded into the rate
    m += (g - m) * (1 - beta_1)
    v += (g ** 2 - v) * (1 - beta_2)
    var -= m * alpha / (sqrt(v) + epsilon)

``epsilon`` (1e-7) is added to ``sqrt(v)`` *after* the bias correction is folded
into ``alpha``: the "epsilon hat" of the paper. With ``amsgrad=True`` the
denominator uses the running maximum of ``v``.
"""
from ...ops import math_ops
from .optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (``learning_rate=0.001``, ``beta_1=0.9``, ``beta_2=0.999``, ``epsilon=1e-7``)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad

    def build(self, var_list):
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat")

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = math_ops.cast(learning_rate, dtype)
        gradient = math_ops.cast(gradient, dtype)
        local_step = math_ops.cast(self.iterations + 1, dtype)
        beta_1_power = math_ops.pow(math_ops.cast(self.beta_1, dtype), local_step)
        beta_2_power = math_ops.pow(math_ops.cast(self.beta_2, dtype), local_step)
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        alpha = lr * math_ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((math_ops.square(gradient) - v) * (1 - self.beta_2))
        if self.amsgrad:
            v_hat = self._velocity_hats[index]
            v_hat.assign(math_ops.maximum(v_hat, v))
            v = v_hat
        variable.assign_sub((m * alpha) / (math_ops.sqrt(v) + self.epsilon))

    def get_config(self):
        return dict(super().get_config(), beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon,
                    amsgrad=self.amsgrad)
