"""Clients that run graphs: ``Session``."""
