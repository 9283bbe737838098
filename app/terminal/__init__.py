"""Work-arounds at the terminal's edge: keys Textual reads apart, type-ahead, the terminal's
colours and progress, hang-ups, and writing only the changed pieces of lines.
"""
