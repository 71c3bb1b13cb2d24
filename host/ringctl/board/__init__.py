"""Firmware build (mpy-cross + manifest), the simulated-board launcher and the firmware bench."""
