"""Foreign text as every view shows it: cleaned of terminal controls (`safe`), a command's
colours kept (`ansi`), a selection drawn over lines a widget renders itself
(`selection_marks`), a page scrolled for every Page Up/Down press (`page_keys`)."""
