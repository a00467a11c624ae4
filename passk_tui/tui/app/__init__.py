"""The app itself: its run controller, quitting, screenshots, the terminal it drives, its launch."""
