"""Random ops (``tf.random``). Filled in by the random work."""
__all__ = []
