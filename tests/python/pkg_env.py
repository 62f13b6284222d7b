"""Imported first by the package tests: python/ (the `atenaot` package of this
checkout) on sys.path, and no __pycache__ in the source tree."""
import os
import sys

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
