"""``AdamW``: Adam with decoupled weight decay (``weight_decay=0.004`` by default).

The decay is applied by the base class before the Adam step:
``var -= var * weight_decay * lr`` (not added to the gradient, so the adaptive
step sizes do not rescale it: the point of "decoupled").
"""
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW (``learning_rate=0.001``, ``weight_decay=0.004``, Adam's betas and epsilon)."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, **kwargs)
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
