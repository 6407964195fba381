"""``python -m kscore.cli ...``: the ``kscore`` command."""

import sys

from . import main

sys.exit(main())
