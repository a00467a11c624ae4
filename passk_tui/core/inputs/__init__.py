"""What an evaluation is given: cases and agents files, settings, prices, programs, bounded and checked."""
