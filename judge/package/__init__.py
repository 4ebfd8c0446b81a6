"""Kattis problem packages: loading (``problem``, ``testgroups``, ``includes``, ``extensions``,
``formats``), what a verdict depends on (``deps``) and ``judge export``. Reads files, runs nothing."""
