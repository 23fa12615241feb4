"""LedgerRate: cost per successful outcome of AI models on real business work."""

__version__ = "0.1.0"
