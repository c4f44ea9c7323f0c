"""The benchmark scripts (run as scripts: ``python benchmarks/NAME.py``). A regular package, so that
``benchmarks._corpus`` imported from a script run out of tests/ (tests/fuzz_*.py) is this folder and not
the test package tests/benchmarks/ beside that script."""
