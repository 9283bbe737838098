"""One pi child's life outside the wire: how it is launched (here or over ssh, with the pinned
runtime), its settings, its record pump, crash recovery and problem monitor.
"""
