"""Tool: look an order up. Arguments on stdin as JSON ({"order_id": "1234"}); answer on stdout."""

import json
import sys

ORDERS = {"1234": "shoes, paid 89.00, delivered 12 days ago", "5678": "a hat, not delivered yet"}

args = json.load(sys.stdin)
order = ORDERS.get(str(args.get("order_id")))
if order is None:
    sys.exit(f"no order {args.get('order_id')!r}")
print(f"order {args['order_id']}: {order}")
