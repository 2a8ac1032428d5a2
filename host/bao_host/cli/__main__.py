"""`python -m bao_host.cli`: the `bao` command."""

import sys

from bao_host.cli import main

sys.exit(main())
