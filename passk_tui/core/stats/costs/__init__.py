"""What attempts cost: per case (wall seconds, tokens, money) and what a plan would cost."""
