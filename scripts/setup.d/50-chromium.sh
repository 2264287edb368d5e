# debian: chromium
# only-for: tests
# Debian's chromium, headless: the report test opens `ferry report`'s HTML in it and takes a screenshot,
# as a person would see the file; the ignored-decisions test opens the Temporal Web UI in it.
# No browser download: the distribution's package, installed once.
link_tool chromium "$(command -v chromium)"
