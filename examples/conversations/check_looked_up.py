"""A check on the transcript (on = "transcript"): the order was looked up before it was refunded."""

import json
import sys

calls = [m["name"] for m in json.load(sys.stdin)["messages"] if m["role"] == "tool"]
if "refund" not in calls:
    sys.exit("no refund was made")
if "lookup_order" not in calls[: calls.index("refund")]:
    sys.exit("refunded without looking the order up first")
