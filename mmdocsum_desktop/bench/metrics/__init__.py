"""The metrics of each benchmark paper, one module per paper: pure functions of gold and prediction.

No module here reads or writes files, runs a model or imports a suite (an import-linter contract in
``pyproject.toml`` keeps it so); the suites (``bench/suites/``) gather predictions and call these.
"""
