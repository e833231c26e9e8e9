"""The framework layer: dtypes, shapes, errors, devices, the op registry and the Tensor class.

Nothing here runs math. It defines the vocabulary every other layer speaks.
"""
