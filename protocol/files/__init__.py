"""pi's files on disk, read within bounds: session files, headless output, settings files,
themes and their colours, image attachments.
"""
