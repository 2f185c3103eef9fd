"""Handlers of host calls (to come)."""
