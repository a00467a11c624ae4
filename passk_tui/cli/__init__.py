"""The command line: argparse subcommands (run by default, compare, history, init, serve) over evaluations/."""
