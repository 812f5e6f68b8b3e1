"""Builders: choose parameters and radii (floats and heuristics allowed), then ask the kernel to certify."""
