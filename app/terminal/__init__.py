"""Work-arounds at the terminal's edge: type-ahead, the terminal's colours and progress,
hang-ups, signals. (The keys Textual reads apart and writing only the changed pieces of
lines are the engine's: widgets/engine/.)
"""
