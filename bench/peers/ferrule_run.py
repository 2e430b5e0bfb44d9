"""`ferrule run` of the app file named by FERRULE_RUN_APP (beside this one): the drop-in's command line."""

import os
import sys
from pathlib import Path

from ferrule.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", str(Path(__file__).resolve().parent / os.environ["FERRULE_RUN_APP"])]))
