"""A scripted OpenAI-compatible model for the demo and the tests."""
