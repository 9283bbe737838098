"""The colours pideck draws with: pi's theme roles (`palette`), a pi theme as Textual's and
Rich's styles (`theme_styles`), and the colours the terminal can show (`depth`)."""
