"""Reference solutions as importable Python: used by oracles, generators and fuzzing."""
