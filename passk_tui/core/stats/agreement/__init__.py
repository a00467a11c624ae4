"""How far raters agree: a judge's votes with each other, a judge with a person's labels."""
