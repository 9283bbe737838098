"""The sessions open in a window: the desk (desk.py) and each session's slot (slot.py)."""
