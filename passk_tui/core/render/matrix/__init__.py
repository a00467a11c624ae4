"""A matrix (several targets on the same cases) as text and cells: what every face shows of it."""
