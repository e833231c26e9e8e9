"""Eager execution: the op dispatcher and the gradient tape."""
