"""The panes and bars around the conversation: the side panes (`side`), where pi is and its
status (`status_where`), the queue, the row of open sessions, the crash bar, extensions'
widget lines and the footer's keys."""
