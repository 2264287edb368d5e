# debian: tmux
# only-for: tests
# Debian's tmux: the live-view test runs `ferry status --watch` in a tmux pane and reads the screen
# with capture-pane, as a person at a terminal would see it.
