"""Helpers shared by the test folders, found through pytest's `pythonpath` setting."""
