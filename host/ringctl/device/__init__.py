"""Technician tools: pin map, board list, deploy, provision and the doctor report."""
