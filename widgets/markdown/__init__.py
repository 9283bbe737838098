"""Streaming markdown as one widget: cut into chunks that no longer change (`chunks`), parsed
and cleaned (`safe`), laid out into lines (`lines`, `render`), shown (`stream`)."""
