"""The terminal client (Textual): ``fjmj play``."""
