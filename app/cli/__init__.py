"""pideck's commands: `pideck` itself (`pideck`, whose `main` is the `pideck` script's and
`python -m app`'s), `view` and `replay`, `ls`, `stop` and `attach` (`hold`), `serve` and the
pideck a served page runs, `--restore`; and what a quit leaves in the terminal
(`exit_output`) with the commands that resume a session."""

from app.cli.pideck import main
