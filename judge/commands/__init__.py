"""The `judge` subcommands, one module each; `judge/commands/cli.py` holds the argument tree and dispatches."""
