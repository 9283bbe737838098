"""`pideck view` and `pideck replay`: pideck's App over a file instead of pi (`app`), its
read-only screen (`screen`), and a recording played back at its pace (`replay`)."""
