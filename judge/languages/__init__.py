"""Languages as data: ``languages.toml`` and its loader (``table``), toolchain fingerprints, and the
language status ``judge doctor`` shows. No other part of the judge names a language (docs/design.md)."""
