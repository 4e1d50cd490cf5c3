"""``python -m envzoo``: the ``envzoo`` command."""

import sys

from envzoo.cli import main

sys.exit(main())
