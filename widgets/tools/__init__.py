"""Tool calls as pideck draws them: a renderer per kind of tool (`kinds`), output that may be
huge, bounded (`output`), and code highlighted with a line-number gutter (`code_lines`)."""
