"""Package list: every package under host/, plus ringctl.fw which is firmware/lib itself."""
from setuptools import find_packages, setup

setup(packages=find_packages("host") + ["ringctl.fw"])
