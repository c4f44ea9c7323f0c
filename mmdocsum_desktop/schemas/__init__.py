"""The typed schemas every layer shares: documents, summaries, answers, placements, settings and
benchmark records. Front ends (``gui``, ``cli``) and the benchmarks import these and ``app`` only.

Each concept has one schema here; the packages that compute them import it from here.
"""
