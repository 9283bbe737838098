"""Modal screens: extension dialogs, pickers, the Changes, tree, tool output and info views.
"""
