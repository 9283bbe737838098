"""What the user types into: the prompt editor (`editor`) with pi's readline keys
(`readline_area`), `/` and `@` completion, large pastes as markers, the images attached
(`attachments`), and the read-only view's command line (`command_line`)."""
