# debian: tmux
# only-for: tests
# Debian's tmux: the live-view and ignored-decisions tests run `ferry status --watch` in a tmux pane and
# read the screen with capture-pane, as a person at a terminal would see it.
