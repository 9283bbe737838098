"""pideck's `/` commands and the keys that run them: plain functions over a `CommandContext`.
"""
