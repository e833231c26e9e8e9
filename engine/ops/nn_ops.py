"""Neural-network ops (``tf.nn``). Filled in by the nn work."""
__all__ = []
