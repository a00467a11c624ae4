"""What is written for people and tools from a stored evaluation: .json .csv .md .xml .html."""
