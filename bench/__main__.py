"""``python -m bench``: print the engine's figures next to NumPy's."""
import sys

from .run import main

sys.exit(main())
