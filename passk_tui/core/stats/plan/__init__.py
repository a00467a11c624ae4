"""How many attempts: the gate's chance of the right verdict, compare's power, what a plan costs."""
