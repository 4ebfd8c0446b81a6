"""`python3 -m judge` is the `judge` command."""

import sys

from judge.commands.cli import main

sys.exit(main())
