"""The `judge` subcommands, one module each; `judge/cli.py` holds the argument tree and dispatches."""
