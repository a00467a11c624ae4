"""What an agent needs to hold a conversation: its tools (the file, running each call), the
Chat Completions messages of a conversation, and the simulated users of the agents file."""
