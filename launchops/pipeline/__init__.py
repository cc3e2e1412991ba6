"""The launch pipeline: its steps, their context, and the plain in-process driver."""
