"""Textual widgets: they read the session model or receive messages, never raw JSON."""
