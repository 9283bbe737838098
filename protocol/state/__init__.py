"""What pideck builds from pi's records: the session model (a pure reducer), the session tree,
the files a session changed and their diffs, reverts and rewind points, the `@` file index
and the notification center. Pure logic, no IO on pi's pipes.
"""
