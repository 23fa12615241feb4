"""Sandboxes for untrusted input from models: SQL (`sql`) and file paths (`files`)."""
