"""Make the shared shorthand (gamekit) importable from the game tests."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
