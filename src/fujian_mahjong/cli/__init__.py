"""The ``fjmj`` command line."""
