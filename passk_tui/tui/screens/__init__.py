"""The app's screens: configure, run, results, case, history, and the confirm dialog."""
