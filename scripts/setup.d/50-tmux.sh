# Debian's tmux: the live-view test runs `ferry status --watch` in a tmux pane and reads the screen
# with capture-pane, as a person at a terminal would see it.
apt_install_tmux() { apt_install tmux; }
with_lock apt apt_install_tmux
