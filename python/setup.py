"""pip install --no-deps --no-build-isolation python/  (or tools/install.sh)."""
from setuptools import setup

setup(
    name="atenaot",
    version="0.2",
    description="atenaot from Python: compile PyTorch modules to C, and functionalize/reinplace FX graphs",
    packages=["atenaot"],
    python_requires=">=3.7",
)
