"""The holder: one small per-user process that owns pi children so that their runs outlive
the window that started them (`pideck --hold`). Windows reach it over a Unix socket."""
