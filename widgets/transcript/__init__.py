"""The conversation: the transcript (`transcript`), a view per item of the session model
(`message_views`) and the search over what they show (`search`)."""
