"""A simulated customer: reads the conversation ({"messages": [...]}, its instruction first)
on stdin and writes the customer's next message; ends with ###DONE### once refunded."""

import json
import sys

messages = json.load(sys.stdin)["messages"]
heard = [m["content"] for m in messages if m["role"] == "user"]  # what the agent said
if any("refunded" in text for text in heard):
    print("Great, thank you! ###DONE###")
elif any("order number" in text.lower() for text in heard):
    print("It is order 1234.")
else:
    print("Hi, I would like a refund please.")
