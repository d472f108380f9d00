"""Dashboard screens written as one module each, with a ``render()`` function."""
