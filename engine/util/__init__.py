"""Small utilities shared by the engine (nested structures)."""
