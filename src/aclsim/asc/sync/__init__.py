"""Synchronisation instructions: flags between the pipes of a core, and between cores."""
