"""Suite-wide fixtures. The real Redis comes from the plugin in tests/services.py."""
