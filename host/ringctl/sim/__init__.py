"""Ring simulator: coin-toss physics (pybullet), sensor timelines and camera frames from it.

Import the pieces you need (`ringctl.sim.physics`, `.sensors`, `.camera`); pybullet is only
loaded when a toss is simulated.
"""
