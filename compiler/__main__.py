"""`python -m compiler` is the `chartc` command."""

import sys

from .cli import main

sys.exit(main())
