"""`python -m app` is the `pideck` command (`pideck serve` runs one this way for each page)."""

import sys

from app.cli import main

sys.exit(main())
