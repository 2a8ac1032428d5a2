import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
# The firmware tests' helpers (baotest) serve the host's rules tests too.
sys.path.insert(0, str(ROOT / "tests" / "firmware"))
